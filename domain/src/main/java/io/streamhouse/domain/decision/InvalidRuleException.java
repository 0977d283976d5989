package io.streamhouse.domain.decision;

/** A rule definition that cannot be applied; {@link #field()} names the offending field or parameter. */
public final class InvalidRuleException extends IllegalArgumentException {
    private final String field;

    public InvalidRuleException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
