package io.streamhouse.ingest.kafka;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.opentelemetry.api.OpenTelemetry;
import io.quarkus.runtime.Startup;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.SchemaPrefetch;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.tracing.ForKafka;
import io.streamhouse.tracing.KafkaTracing;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes events to the log with an idempotent producer and acks=all; callers answer only once the returned future
 * completed (see {@code EventIntake}), so an accepted request is never lost. Values are serialized to the Confluent
 * wire format through the schema registry, registering the schema under the topic's subject if the registry allows
 * it. Dead letters are written raw, byte for byte as received, with their reason in headers. Each record also carries
 * the caller's trace in a W3C {@code traceparent} header (KafkaTelemetry; none while tracing is off), beside the value:
 * the value's wire format does not change.
 */
@ApplicationScoped
@Startup
public class EventLog {
    /** The event topics the endpoints write. */
    static final List<Topic<String, ?>> WRITES = List.of(Topics.TRANSACTION_REQUESTS, Topics.VEHICLE_TELEMETRY, Topics.PARCEL_SCANS);

    private final SchemaRegistryClient registry;
    private final Producer<String, byte[]> producer;
    private final Duration timeout;
    private final Map<Class<?>, AvroSerializer<?>> serializers = new ConcurrentHashMap<>();

    public EventLog(IngestConfig settings, @ForKafka OpenTelemetry openTelemetry) {
        this.registry = new CachingSchemaRegistryClient(settings.schemaRegistry().url());
        this.timeout = settings.publishTimeout();
        this.producer = KafkaTracing.producer(openTelemetry, new KafkaProducer<>(
                KafkaClientSettings.forPrincipal(KafkaPrincipal.INGEST).producer(settings.kafka().bootstrapServers(),
                        producerConfig(settings)),
                new StringSerializer(), new ByteArraySerializer()));
        // At start-up, not at the first request: the registry's schema ids, and the producer's metadata for the
        // topics ingest writes.
        SchemaPrefetch.prefetch(registry, WRITES);
        WRITES.forEach(topic -> {
            try {
                producer.partitionsFor(topic.name());
            } catch (KafkaException notYet) {
                // the first send asks again
            }
        });
    }

    /**
     * The producer's settings. The producer keeps retrying for the delivery timeout, longer than a request waits: an
     * event whose request was answered 503 is either written once by these retries (which the broker de-duplicates:
     * idempotence) or fails for good, and until then a retried request finds it in flight ({@code AcceptedEvents})
     * instead of writing it again. With the two equal, a broker away longer than the publish timeout made the
     * producer give up on batches the broker had already written, and the retries wrote them a second time.
     */
    static Map<String, Object> producerConfig(IngestConfig settings) {
        Duration publish = settings.publishTimeout();
        Duration delivery = settings.deliveryTimeout();
        if (delivery.compareTo(publish) < 0) {
            throw new IllegalArgumentException("streamhouse.delivery-timeout (" + delivery
                    + ") must be at least streamhouse.publish-timeout (" + publish + ")");
        }
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "streamhouse-ingest");
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 1);
        config.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        // Guarantees, not tunables: nothing acknowledged may be lost or written twice by a producer retry.
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) delivery.toMillis());
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(publish.toMillis() / 2, 30_000));
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.min(publish.toMillis(), settings.publishBlock().toMillis()));
        return config;
    }

    /**
     * Hands one event to the producer, with {@code headers} (ASCII values, e.g. an authorize request's reply partition)
     * on its record. The future completes when the broker acknowledged it (or failed for good,
     * at the latest after {@code streamhouse.delivery-timeout}; callers stop waiting after the publish timeout). Throws {@link PublishException} when the event could
     * not even be handed over (registry unreachable, producer buffer full for too long).
     */
    public <V extends SpecificRecord> CompletableFuture<RecordMetadata> send(Topic<String, V> topic, String key, V event,
                                                                           Map<String, String> headers) {
        byte[] value;
        try {
            value = serializer(topic).serialize(topic.name(), event);
        } catch (SerializationException e) {
            throw new PublishException("could not serialize for " + topic.name() + ": " + e.getMessage(), e);
        }
        var record = new ProducerRecord<String, byte[]>(topic.name(), key, value);
        headers.forEach((k, v) -> record.headers().add(k, v.getBytes(StandardCharsets.US_ASCII)));
        return send(record);
    }

    /**
     * Writes a record to a dead-letter topic exactly as it arrived, with the headers saying why, and waits for the
     * acknowledgement; throws {@link PublishException} if it did not come in time.
     */
    public RecordMetadata deadLetter(Topic<byte[], byte[]> deadLetters, String key, byte[] raw, Map<String, String> headers) {
        var record = new ProducerRecord<String, byte[]>(deadLetters.name(), key, raw);
        headers.forEach((k, v) -> record.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
        return await(send(record), deadLetters.name());
    }

    /** Waits for one acknowledgement within the publish timeout. */
    public RecordMetadata await(CompletableFuture<RecordMetadata> written, String topic) {
        try {
            return written.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while writing to " + topic, e);
        } catch (ExecutionException e) {
            throw new PublishException("could not write to " + topic + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new PublishException("no acknowledgement from " + topic + " within " + timeout, e);
        }
    }

    public Duration timeout() {
        return timeout;
    }

    private CompletableFuture<RecordMetadata> send(ProducerRecord<String, byte[]> record) {
        var written = new CompletableFuture<RecordMetadata>();
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    written.complete(metadata);
                } else {
                    written.completeExceptionally(error);
                }
            });
        } catch (KafkaException e) {
            throw new PublishException("could not hand a record for " + record.topic() + " to the producer: " + e.getMessage(), e);
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
