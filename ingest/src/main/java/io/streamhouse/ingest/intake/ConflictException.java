package io.streamhouse.ingest.intake;

import io.streamhouse.ingest.http.FieldError;

import java.util.List;

/** An event id this instance already accepted, sent again with different content; nothing was written. */
public final class ConflictException extends RuntimeException {
    private final List<FieldError> errors;

    public ConflictException(List<FieldError> errors) {
        super("event id(s) already used for a different event: " + errors);
        this.errors = List.copyOf(errors);
    }

    public List<FieldError> errors() {
        return errors;
    }
}
