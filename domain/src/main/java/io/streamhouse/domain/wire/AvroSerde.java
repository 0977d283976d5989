package io.streamhouse.domain.wire;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * {@link AvroSerializer} and {@link AvroDeserializer} as one {@link Serde}, for Kafka Streams. Built with a client,
 * it shares that client (and does not close it); built empty and configured, each half owns its own client.
 */
public class AvroSerde<T extends SpecificRecord> implements Serde<T> {

    private final AvroSerializer<T> serializer;
    private final AvroDeserializer<T> deserializer;

    /** For Kafka's reflective instantiation; {@link #configure} must follow. */
    public AvroSerde() {
        this.serializer = new AvroSerializer<>();
        this.deserializer = new AvroDeserializer<>();
    }

    public AvroSerde(SchemaRegistryClient client, Class<T> type, boolean isKey) {
        this.serializer = new AvroSerializer<>(client, type, isKey);
        this.deserializer = new AvroDeserializer<>(client, type, isKey);
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        serializer.configure(configs, isKey);
        deserializer.configure(configs, isKey);
    }

    @Override
    public Serializer<T> serializer() {
        return serializer;
    }

    @Override
    public Deserializer<T> deserializer() {
        return deserializer;
    }

    @Override
    public void close() {
        serializer.close();
        deserializer.close();
    }
}
