package io.streamhouse.ingest.kafka;

/** Where an accepted event was written. */
public record Accepted(String id, String eventId, String topic, int partition, long offset) {
}
