package io.streamhouse.lakequery;

import io.streamhouse.domain.topic.Topic;

import java.util.List;
import java.util.Map;

/**
 * What the engine reads: the broker and registry of the Kafka tables, the topics to expose, and the Iceberg catalog's
 * properties (empty: no {@code lake} catalog). Slots and parallelism size the warm MiniCluster.
 */
record EngineSettings(String bootstrapServers, String registryUrl, List<Topic<String, ?>> topics,
                      Map<String, String> icebergCatalog, int slots, int parallelism) {

    EngineSettings {
        topics = List.copyOf(topics);
        icebergCatalog = Map.copyOf(icebergCatalog);
        if (parallelism < 1 || slots < parallelism) {
            throw new IllegalArgumentException("need 1 <= parallelism <= slots, got parallelism " + parallelism + ", slots " + slots);
        }
    }
}
