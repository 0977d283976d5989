package io.streamhouse.api;

import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.SharedPlatform;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.util.Map;

/** Writes events of any topic to the shared platform's log, as the edge would (wire format, keyed by aggregate id). */
public final class EventLog {

    @SuppressWarnings("unchecked")
    public static <V extends SpecificRecord> void send(Topic<String, V> topic, String key, V value) throws Exception {
        var client = new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString());
        byte[] bytes = new AvroSerializer<>(client, (Class<V>) value.getClass(), false).serialize(topic.name(), value);
        sendRaw(topic.name(), key, bytes);
    }

    public static void sendRaw(String topic, String key, byte[] value) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    private EventLog() {
    }
}
