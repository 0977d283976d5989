package io.streamhouse.lakequery;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How to start the query service's JVM.
 *
 * @param port     0 picks a free port on 127.0.0.1 before the start, so the URL is known at once
 * @param lake     the Iceberg catalog to read; empty: Kafka tables only
 * @param maxHeap  the child's {@code -Xmx}, e.g. {@code 768m}
 * @param maintenance how the child maintains the lake's tables (only with a {@code lake})
 */
public record LakeQueryOptions(Path dataDir, String bootstrapServers, String registryUrl, Optional<Lake> lake, int port,
                               String maxHeap, int parallelism, MaintenanceSettings maintenance) {

    /** Iceberg's JDBC catalog ({@code jdbc.schema-version=V1}) and its warehouse URI ({@code file:///…}). */
    public record Lake(String jdbcUrl, String user, String password, String warehouse) {
        public Lake {
            Objects.requireNonNull(jdbcUrl, "jdbcUrl");
            Objects.requireNonNull(warehouse, "warehouse");
        }
    }

    public LakeQueryOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(registryUrl, "registryUrl");
        Objects.requireNonNull(lake, "lake");
        Objects.requireNonNull(maxHeap, "maxHeap");
        Objects.requireNonNull(maintenance, "maintenance");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, was " + parallelism);
        }
    }

    /** A query service that does not maintain the lake (tests and benchmarks of queries). */
    public static LakeQueryOptions of(Path dataDir, String bootstrapServers, String registryUrl, Optional<Lake> lake) {
        return new LakeQueryOptions(dataDir, bootstrapServers, registryUrl, lake, 0, "768m", 2, MaintenanceSettings.OFF);
    }

    public LakeQueryOptions withMaintenance(MaintenanceSettings settings) {
        return new LakeQueryOptions(dataDir, bootstrapServers, registryUrl, lake, port, maxHeap, parallelism, settings);
    }
}
