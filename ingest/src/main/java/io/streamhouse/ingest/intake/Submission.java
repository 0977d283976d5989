package io.streamhouse.ingest.intake;

import java.util.Objects;

/**
 * One validated event on its way to the log.
 *
 * @param id           the business id the client knows it by (transaction, vehicle or parcel id), echoed in the answer
 * @param key          the record key (aggregate id)
 * @param eventId      the envelope's event id: the idempotency key
 * @param eventIdField the request field the event id came from or was derived from, to name in errors
 */
public record Submission<V>(String id, String key, String eventId, String eventIdField, V event) {
    public Submission {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(eventIdField, "eventIdField");
        Objects.requireNonNull(event, "event");
    }
}
