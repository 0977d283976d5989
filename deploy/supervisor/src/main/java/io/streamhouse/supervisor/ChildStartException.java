package io.streamhouse.supervisor;

/** A child did not become ready: it could not be launched, exited early, or timed out. The message names why. */
public final class ChildStartException extends IllegalStateException {
    public ChildStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
