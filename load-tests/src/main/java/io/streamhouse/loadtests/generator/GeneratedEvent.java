package io.streamhouse.loadtests.generator;

import org.apache.avro.specific.SpecificRecord;

import java.time.Instant;
import java.util.Objects;

/**
 * One generated event in delivery order.
 *
 * @param deliveryIndex  position in the delivered stream (0-based)
 * @param key            aggregate id: the Kafka record key
 * @param latenessMillis how far behind the newest event delivered before it this one is, by event time; 0 when it
 *                       arrives in event-time order
 */
public record GeneratedEvent(int deliveryIndex, EventKind kind, String key, String eventId, Instant occurredAt,
                             SpecificRecord value, long latenessMillis) {
    public GeneratedEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(value, "value");
        if (latenessMillis < 0) {
            throw new IllegalArgumentException("latenessMillis must not be negative");
        }
    }

    public boolean late() {
        return latenessMillis > 0;
    }
}
