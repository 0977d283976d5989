package io.streamhouse.domain.topic;

/** Kafka's {@code cleanup.policy}: an event log keeps every record (delete by retention only); a table topic keeps the latest per key. */
public enum CleanupPolicy {
    DELETE("delete"),
    COMPACT("compact");

    private final String config;

    CleanupPolicy(String config) {
        this.config = config;
    }

    public String config() {
        return config;
    }
}
