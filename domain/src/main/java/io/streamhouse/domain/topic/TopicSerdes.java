package io.streamhouse.domain.topic;

import org.apache.kafka.common.serialization.Serde;

/**
 * Makes the value serde of a topic. The production implementation speaks the Confluent wire format through a
 * schema registry; tests use the same one over an in-memory registry. Keys are always UTF-8 strings.
 */
@FunctionalInterface
public interface TopicSerdes {
    <V> Serde<V> valueSerde(Topic<?, V> topic);
}
