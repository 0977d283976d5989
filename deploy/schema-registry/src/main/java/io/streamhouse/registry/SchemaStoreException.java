package io.streamhouse.registry;

/** The store could not read or durably write its log. */
public final class SchemaStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SchemaStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public SchemaStoreException(String message) {
        super(message);
    }
}
