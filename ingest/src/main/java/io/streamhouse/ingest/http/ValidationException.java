package io.streamhouse.ingest.http;

import java.util.List;

/** A request that parsed but is not valid; answered 422 with every bad field. */
public final class ValidationException extends RuntimeException {
    private final List<FieldError> errors;

    public ValidationException(List<FieldError> errors) {
        super(errors.size() + " invalid field(s): " + errors);
        this.errors = List.copyOf(errors);
    }

    public List<FieldError> errors() {
        return errors;
    }
}
