package io.streamhouse.domain.topic;

import org.apache.kafka.common.serialization.Serde;

/**
 * Makes the value serde of a topic, or of a state store. The production implementation speaks the Confluent wire format through a
 * schema registry; tests use the same one over an in-memory registry. Keys are always UTF-8 strings.
 */
public interface TopicSerdes {
    <V> Serde<V> valueSerde(Topic<?, V> topic);

    /** Serde of a state store's values (also written to its changelog topic, hence governed like events). */
    <V extends org.apache.avro.specific.SpecificRecord> Serde<V> stateSerde(Class<V> type);
}
