package io.streamhouse.connect;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.transforms.Transformation;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fails a record whose topic has no lake table, so that Connect's error handling puts it on the dead-letter topic
 * with the reason: the Iceberg sink would skip it silently (a route field that matches no table's regex).
 * Tombstones (null values) pass: they carry no row, and the append-only sink skips them on purpose.
 *
 * <p>Config: {@value #TOPICS}, the topics that have a table (the same list the connector routes).
 */
public class LakeRouteGuard<R extends ConnectRecord<R>> implements Transformation<R> {

    public static final String TOPICS = "topics";
    private Set<String> topics = Set.of();

    @Override
    public void configure(Map<String, ?> configs) {
        Object raw = configs.get(TOPICS);
        if (raw == null || raw.toString().isBlank()) {
            throw new org.apache.kafka.common.config.ConfigException(TOPICS, raw, "the topics that have a lake table are required");
        }
        topics = Set.copyOf(List.of(raw.toString().split("\\s*,\\s*")));
    }

    @Override
    public R apply(R record) {
        if (record.value() == null || topics.contains(record.topic())) {
            return record;
        }
        throw new DataException("no lake table for topic '" + record.topic() + "' (partition " + record.kafkaPartition()
                + "): the sink would skip this record; tables exist for " + topics.size() + " topics");
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef().define(TOPICS, ConfigDef.Type.LIST, ConfigDef.Importance.HIGH,
                "The topics that have a lake table.");
    }

    @Override
    public void close() {
    }
}
