package io.streamhouse.ingest.kafka;

/** The log did not acknowledge a write in time; the request was not accepted and may be retried as is. */
public final class PublishException extends RuntimeException {
    public PublishException(String message, Throwable cause) {
        super(message, cause);
    }
}
