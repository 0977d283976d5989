package io.streamhouse.ingest.intake;

/** The in-flight bound is reached: the request was refused before anything was written; retry after a moment. */
public final class TooBusyException extends RuntimeException {
    public TooBusyException(String message) {
        super(message);
    }
}
