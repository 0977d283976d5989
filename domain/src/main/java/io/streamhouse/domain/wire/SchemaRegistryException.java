package io.streamhouse.domain.wire;

import org.apache.kafka.common.errors.SerializationException;

/**
 * The registry answered with an error. Carries Confluent's {@code error_code} (e.g. 40401 subject not found, 40403
 * schema not found, 409 incompatible, 42201 invalid schema) and the HTTP status, so callers can tell "not registered
 * yet" from "rejected" without parsing messages. It is a {@link SerializationException} so a failing registry inside
 * a serializer surfaces the way Kafka expects serializer failures to.
 */
public class SchemaRegistryException extends SerializationException {

    private static final long serialVersionUID = 1L;

    /** Confluent's code when the response carried none (e.g. an HTML page from a proxy). */
    public static final int UNKNOWN_ERROR_CODE = -1;

    private final int errorCode;
    private final int httpStatus;

    public SchemaRegistryException(String message, int httpStatus, int errorCode) {
        super(message + " (HTTP " + httpStatus + ", error code " + errorCode + ")");
        this.errorCode = errorCode;
        this.httpStatus = httpStatus;
    }

    /** Confluent's {@code error_code}, or {@link #UNKNOWN_ERROR_CODE}. */
    public int errorCode() {
        return errorCode;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
