package io.streamhouse.domain.events;

import io.streamhouse.domain.event.Envelope;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/** Builds the envelope every event carries. Times are passed in: the domain never reads a clock. */
public final class Envelopes {

    public static Envelope create(String eventId, String key, Instant occurredAt, Instant recordedAt, String source,
                                  int schemaVersion, String correlationId) {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(recordedAt, "recordedAt");
        Objects.requireNonNull(source, "source");
        if (eventId.isBlank() || key.isBlank() || source.isBlank()) {
            throw new IllegalArgumentException("eventId, key and source must not be blank");
        }
        return Envelope.newBuilder()
                .setEventId(eventId)
                .setKey(key)
                .setOccurredAt(occurredAt)
                .setRecordedAt(recordedAt)
                .setSource(source)
                .setSchemaVersion(schemaVersion)
                .setCorrelationId(correlationId)
                .build();
    }

    /**
     * An event id derived from what caused the event, so that reprocessing the same input (a replay, a retry after
     * a crash) produces the same id and downstream de-duplication works.
     */
    public static String derivedEventId(String kind, String causeEventId) {
        return UUID.nameUUIDFromBytes((kind + ":" + causeEventId).getBytes(StandardCharsets.UTF_8)).toString();
    }

    private Envelopes() {
    }
}
