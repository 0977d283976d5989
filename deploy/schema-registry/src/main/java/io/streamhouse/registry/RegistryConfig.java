package io.streamhouse.registry;

import java.util.Objects;

/**
 * Where the registry listens and where it keeps its log.
 *
 * @param bootstrapServers Kafka bootstrap servers of the cluster holding the log topic
 * @param host interface to bind; 127.0.0.1 unless the registry must be reachable from other machines
 * @param port HTTP port; 0 picks a free one (tests), Confluent's default is 8081
 * @param topic the compacted single-partition log topic, {@code _schemas} like Confluent's
 * @param replicationFactor used only when the topic is created; 1 for a single dev broker, 3 in production
 */
public record RegistryConfig(String bootstrapServers, String host, int port, String topic, short replicationFactor) {

    public static final String DEFAULT_TOPIC = "_schemas";
    public static final int DEFAULT_PORT = 8081;

    public RegistryConfig {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(topic, "topic");
        if (bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrapServers must not be blank");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        if (topic.isBlank()) {
            throw new IllegalArgumentException("topic must not be blank");
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replicationFactor must be >= 1, was " + replicationFactor);
        }
    }

    /** Loopback only, port 8081, topic {@code _schemas}, replication factor 1. */
    public static RegistryConfig of(String bootstrapServers) {
        return new RegistryConfig(bootstrapServers, "127.0.0.1", DEFAULT_PORT, DEFAULT_TOPIC, (short) 1);
    }

    public RegistryConfig withHost(String host) {
        return new RegistryConfig(bootstrapServers, host, port, topic, replicationFactor);
    }

    public RegistryConfig withPort(int port) {
        return new RegistryConfig(bootstrapServers, host, port, topic, replicationFactor);
    }

    public RegistryConfig withTopic(String topic) {
        return new RegistryConfig(bootstrapServers, host, port, topic, replicationFactor);
    }

    public RegistryConfig withReplicationFactor(short replicationFactor) {
        return new RegistryConfig(bootstrapServers, host, port, topic, replicationFactor);
    }
}
