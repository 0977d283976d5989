package io.streamhouse.ingest.kafka;

/**
 * Where an accepted event was written. {@code duplicate} is true when this request repeated an event this instance
 * had already written (same event id, same content): nothing new was written, and the position is the original's.
 */
public record Accepted(String id, String eventId, String topic, int partition, long offset, boolean duplicate) {

    public Accepted asDuplicate() {
        return new Accepted(id, eventId, topic, partition, offset, true);
    }
}
