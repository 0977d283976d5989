package io.streamhouse.loadtests.generator;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes events straight to the catalog topics, as the edges would: key = aggregate id (UTF-8), value = Avro in the
 * Confluent wire format ({@link AvroSerializer}, schemas registered under {@code <topic>-value} through a
 * {@link CachingSchemaRegistryClient}). Idempotent producer with {@code acks=all}: duplicates are not written by
 * retries, and an event counts as sent once the broker acknowledged it. The first failed send fails the run.
 * Loopback brokers and registries only. An {@link Acks} listener hears each event's outcome, for callers that account
 * for every acknowledged event themselves (the burst drill).
 */
public final class KafkaSink implements Sink {
    private final String bootstrap;
    private final SchemaRegistryClient registry;
    private final AvroSerializer<SpecificRecord> serializer;
    private final KafkaProducer<String, byte[]> producer;
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Acks acks;

    /** Told of each event once the broker acknowledged it ({@code failure} null) or the send failed for good. */
    @FunctionalInterface
    public interface Acks {
        void completed(GeneratedEvent event, Exception failure);
    }

    public KafkaSink(String bootstrapServers, String registryUrl, Map<String, Object> overrides) {
        this(bootstrapServers, registryUrl, overrides, (event, failure) -> { });
    }

    public KafkaSink(String bootstrapServers, String registryUrl, Map<String, Object> overrides, Acks acks) {
        this.acks = java.util.Objects.requireNonNull(acks, "acks");
        this.bootstrap = Loopback.requireBootstrap(bootstrapServers);
        Loopback.requireUri(registryUrl, "schema registry");
        this.registry = new CachingSchemaRegistryClient(registryUrl);
        this.serializer = new AvroSerializer<>(registry, SpecificRecord.class, false);
        Map<String, Object> config = new HashMap<>(overrides);
        config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "streamhouse-generator");
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 10);
        config.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 128 * 1024);
        config.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        // What the run's guarantees rest on: never overridden.
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        this.producer = new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS)
                .producer(bootstrap, config), new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public String describe() {
        return "kafka " + bootstrap;
    }

    @Override
    public Set<EventKind> supportedKinds() {
        return EnumSet.allOf(EventKind.class);
    }

    @Override
    public void send(GeneratedEvent e) throws IOException {
        throwIfFailed();
        String topic = e.kind().topic().name();
        byte[] value = serializer.serialize(topic, e.value());
        producer.send(new ProducerRecord<>(topic, e.key(), value), (metadata, exception) -> {
            if (exception != null) {
                failure.compareAndSet(null, exception);
            }
            acks.completed(e, exception);
        });
    }

    @Override
    public void flush(long deadlineNanos) throws IOException {
        // flush() has no timeout of its own; delivery.timeout.ms bounds it, the deadline bounds close().
        producer.flush();
        throwIfFailed();
    }

    private void throwIfFailed() throws IOException {
        Exception e = failure.get();
        if (e != null) {
            throw new IOException("Kafka refused an event (" + describe() + "): " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        serializer.close();
        registry.close();
    }
}
