package io.streamhouse.ingest.kafka;

import io.quarkus.runtime.Startup;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes events to the log and waits for the broker's acknowledgement (acks=all, idempotent producer) before
 * the caller answers: an accepted request is never lost. Values are serialized to the Confluent wire format
 * through the schema registry, registering the schema under the topic's subject if the registry allows it.
 */
@ApplicationScoped
@Startup
public class EventLog {
    private final SchemaRegistryClient registry;
    private final KafkaProducer<String, byte[]> producer;
    private final Duration timeout;
    private final Map<Class<?>, AvroSerializer<?>> serializers = new java.util.concurrent.ConcurrentHashMap<>();

    public EventLog(IngestConfig settings) {
        this.registry = new CachingSchemaRegistryClient(settings.schemaRegistry().url());
        this.timeout = settings.publishTimeout();
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafka().bootstrapServers());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "streamhouse-ingest");
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 1);
        config.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        // Guarantees, not tunables: nothing acknowledged may be lost or written twice by a producer retry.
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis() / 2, 30_000));
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis());
        this.producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }

    /** Writes all events and returns where each landed, in order; throws {@link PublishException} if any failed. */
    public <V extends SpecificRecord> List<RecordMetadata> publish(Topic<String, V> topic, List<Map.Entry<String, V>> events) {
        AvroSerializer<V> serializer = serializer(topic);
        List<Future<RecordMetadata>> futures = new ArrayList<>(events.size());
        for (var e : events) {
            byte[] value = serializer.serialize(topic.name(), e.getValue());
            futures.add(producer.send(new ProducerRecord<>(topic.name(), e.getKey(), value)));
        }
        List<RecordMetadata> written = new ArrayList<>(futures.size());
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Future<RecordMetadata> f : futures) {
            try {
                written.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PublishException("interrupted while writing to " + topic.name(), e);
            } catch (ExecutionException | TimeoutException e) {
                throw new PublishException("could not write to " + topic.name() + ": " + e.getMessage(), e);
            }
        }
        return written;
    }

    @SuppressWarnings("unchecked")
    private <V extends SpecificRecord> AvroSerializer<V> serializer(Topic<String, V> topic) {
        return (AvroSerializer<V>) serializers.computeIfAbsent(topic.valueType(),
                t -> new AvroSerializer<>(registry, topic.valueType(), false));
    }

    @PreDestroy
    void close() {
        producer.close(Duration.ofSeconds(5));
        registry.close();
    }
}
