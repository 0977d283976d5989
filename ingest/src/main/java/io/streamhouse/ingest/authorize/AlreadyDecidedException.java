package io.streamhouse.ingest.authorize;

import io.streamhouse.ingest.http.FieldError;

import java.util.List;

/**
 * The decision that came back for an authorize request was made for a different request under the same transaction
 * id: the decision topology never decides this one, and has dead-lettered it with the reason.
 */
public final class AlreadyDecidedException extends RuntimeException {
    private final String transactionId;

    public AlreadyDecidedException(String transactionId) {
        super("transaction id " + transactionId + " was already decided for a different request");
        this.transactionId = transactionId;
    }

    public List<FieldError> errors() {
        return List.of(new FieldError("transactionId", "transaction id " + transactionId
                + " was already decided for a different request; this one is not decided"));
    }
}
