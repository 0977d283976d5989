package io.streamhouse.ingest.cdc;

/** A raw change record the normaliser cannot turn into a domain event; the message is the dead-letter reason. */
final class CdcRecordException extends RuntimeException {
    CdcRecordException(String message) {
        super(message);
    }

    CdcRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
