package io.streamhouse.domain.wire;

import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Value serdes for catalog topics in the Confluent wire format through one registry client: Avro values become
 * {@link AvroSerde}s (schemas registered under {@code <topic>-value}), byte arrays (dead letters) stay raw.
 * Serdes are made once per topic and shared; they are thread-safe.
 */
public final class RegistryTopicSerdes implements TopicSerdes {
    private final SchemaRegistryClient client;
    private final Map<String, Serde<?>> serdes = new ConcurrentHashMap<>();

    public RegistryTopicSerdes(SchemaRegistryClient client) {
        this.client = client;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public <V> Serde<V> valueSerde(Topic<?, V> topic) {
        return (Serde<V>) serdes.computeIfAbsent(topic.name(), name -> {
            Class<V> type = topic.valueType();
            if (type == byte[].class) {
                return Serdes.ByteArray();
            }
            if (!SpecificRecord.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException("topic " + name + " has no Avro value type: " + type.getName());
            }
            return new AvroSerde(client, type, false);
        });
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V extends SpecificRecord> Serde<V> stateSerde(Class<V> type) {
        return (Serde<V>) serdes.computeIfAbsent("state:" + type.getName(), k -> new AvroSerde<>(client, type, false));
    }
}
