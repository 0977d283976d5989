package io.streamhouse.ingest.intake;

import io.streamhouse.domain.events.Fingerprints;
import org.apache.avro.specific.SpecificRecord;

import java.util.Map;
import java.util.Objects;

/**
 * One validated event on its way to the log.
 *
 * @param id           the business id the client knows it by (transaction, vehicle or parcel id), echoed in the answer
 * @param key          the record key (aggregate id)
 * @param eventId      the envelope's event id: the idempotency key
 * @param eventIdField the request field the event id came from or was derived from, to name in errors
 * @param fingerprint  the event's content without what the edge stamps ({@link Fingerprints}): what tells a retry
 *                     from a different event under the same id, here and in the decision topology
 * @param headers      record headers to write beside the event (ASCII values): routing for its readers, never part of
 *                     the event or its fingerprint
 */
public record Submission<V extends SpecificRecord>(String id, String key, String eventId, String eventIdField, V event,
                                                   byte[] fingerprint, Map<String, String> headers) {
    public Submission {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(eventIdField, "eventIdField");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(fingerprint, "fingerprint");
        headers = Map.copyOf(headers);
    }

    public Submission(String id, String key, String eventId, String eventIdField, V event, byte[] fingerprint) {
        this(id, key, eventId, eventIdField, event, fingerprint, Map.of());
    }

    /** The same submission with one more header on its record. */
    public Submission<V> withHeader(String name, String value) {
        var more = new java.util.HashMap<>(headers);
        more.put(name, value);
        return new Submission<>(id, key, eventId, eventIdField, event, fingerprint, more);
    }

    /** A submission of the event as it is now (it must not change after this: its fingerprint is taken here). */
    public Submission(String id, String key, String eventId, String eventIdField, V event) {
        this(id, key, eventId, eventIdField, event, Fingerprints.of(event));
    }
}
