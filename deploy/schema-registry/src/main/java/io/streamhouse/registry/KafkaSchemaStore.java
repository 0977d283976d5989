package io.streamhouse.registry;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's log in a Kafka topic, as Confluent Schema Registry keeps it in {@code _schemas}: one partition (so
 * the log has one order), {@code cleanup.policy=compact} (so it is never truncated by retention, and superseded values
 * and hard deletes are eventually dropped), JSON keys and values (see {@link RecordCodec}).
 *
 * <p>Guarantees: {@link #append} returns only after every in-sync replica has the record (acks=all, idempotent
 * producer, so a retry cannot duplicate or reorder); {@link #replay} reads from the beginning to the end offset taken
 * when it starts, so it sees every acknowledged write made before.
 *
 * <p>Assumption: this process is the only writer. Two registries on one topic would hand out the same ids; Confluent
 * Schema Registry, Karapace and Apicurio elect a leader for that, and are what production should point at.
 */
public final class KafkaSchemaStore implements SchemaStore {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaSchemaStore.class);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration REPLAY_TIMEOUT = Duration.ofSeconds(60);
    private static final int DELIVERY_TIMEOUT_MS = 20_000;
    /** Longer than the producer's own delivery timeout, so the producer always decides first. */
    private static final Duration WRITE_TIMEOUT = Duration.ofMillis(DELIVERY_TIMEOUT_MS + 10_000);

    private final String bootstrapServers;
    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;

    private KafkaSchemaStore(String bootstrapServers, String topic, KafkaProducer<byte[], byte[]> producer) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.producer = producer;
    }

    /** Creates the topic if it is missing, checks its shape if it exists, and opens the producer. */
    public static KafkaSchemaStore open(String bootstrapServers, String topic, short replicationFactor) {
        ensureTopic(bootstrapServers, topic, replicationFactor);
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "streamhouse-schema-registry-writer");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        // Guarantees: a write is durable on all in-sync replicas, never duplicated, never reordered.
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        // Tunables: one write at a time, answered as soon as it is acknowledged.
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaSchemaStore(bootstrapServers, topic, new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.REGISTRY)
                .producer(bootstrapServers, props)));
    }

    private static void ensureTopic(String bootstrapServers, String topic, short replicationFactor) {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "streamhouse-schema-registry-admin");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_TIMEOUT.toMillis());
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.REGISTRY)
                .admin(bootstrapServers, props))) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, 1, replicationFactor)
                                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                        .all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                LOG.info("Created registry topic '{}' (1 partition, compacted, replication factor {})", topic,
                        replicationFactor);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new SchemaStoreException("Cannot create registry topic '" + topic + "' on "
                            + bootstrapServers + ": " + e.getCause(), e.getCause());
                }
            }
            TopicDescription description = describeOnceKnown(admin, topic);
            if (description.partitions().size() != 1) {
                throw new SchemaStoreException("Registry topic '" + topic + "' has " + description.partitions().size()
                        + " partitions; it needs exactly 1, or the log has no single order");
            }
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(resource);
            ConfigEntry policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
            if (policy == null || !policy.value().contains(TopicConfig.CLEANUP_POLICY_COMPACT)
                    || policy.value().contains(TopicConfig.CLEANUP_POLICY_DELETE)) {
                throw new SchemaStoreException("Registry topic '" + topic + "' has cleanup.policy="
                        + (policy == null ? "?" : policy.value()) + "; it must be 'compact' only, or retention"
                        + " would delete registered schemas");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaStoreException("Interrupted while preparing registry topic '" + topic + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SchemaStoreException("Cannot check registry topic '" + topic + "' on " + bootstrapServers
                    + ": " + e, e);
        }
    }

    /**
     * A topic just created is not yet in every broker's metadata: describing it can answer "unknown topic" for a
     * moment. Asks again until it is known or the admin timeout has passed.
     */
    private static TopicDescription describeOnceKnown(Admin admin, String topic)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
        while (true) {
            try {
                return admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
                        || System.nanoTime() > deadline) {
                    throw e;
                }
                // Metadata propagates within milliseconds; a short pause keeps this from spinning.
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    @Override
    public void replay(Consumer<StoreRecord> sink) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "streamhouse-schema-registry-reader");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        // No group: the partition is assigned, read whole each time, and no offsets are committed.
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        TopicPartition partition = new TopicPartition(topic, 0);
        long deadline = System.nanoTime() + REPLAY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.REGISTRY)
                .consumer(bootstrapServers, props))) {
            Collection<TopicPartition> partitions = Set.of(partition);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long end = consumer.endOffsets(partitions, REPLAY_TIMEOUT).get(partition);
            long read = 0;
            while (consumer.position(partition, REPLAY_TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw new SchemaStoreException("Replaying registry topic '" + topic + "' took longer than "
                            + REPLAY_TIMEOUT + "; read " + read + " records, stopped at offset "
                            + consumer.position(partition) + " of " + end);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    read++;
                    StoreRecord decoded = decode(record);
                    if (decoded != null) {
                        sink.accept(decoded);
                    }
                }
            }
            LOG.info("Replayed {} records of registry topic '{}' up to offset {}", read, topic, end);
        } catch (SchemaStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SchemaStoreException("Cannot replay registry topic '" + topic + "': " + e, e);
        }
    }

    private StoreRecord decode(ConsumerRecord<byte[], byte[]> record) {
        try {
            StoreRecord decoded = RecordCodec.decode(record.key(), record.value());
            if (decoded == null) {
                LOG.warn("Skipping record of unknown kind at offset {} of '{}'", record.offset(), topic);
            }
            return decoded;
        } catch (IllegalArgumentException e) {
            // A registry that silently skipped a schema could hand its id out again: refuse to start instead.
            throw new SchemaStoreException("Corrupt record at offset " + record.offset() + " of registry topic '"
                    + topic + "': " + e.getMessage(), e);
        }
    }

    @Override
    public void append(StoreRecord record) {
        ProducerRecord<byte[], byte[]> message = new ProducerRecord<>(topic, 0,
                RecordCodec.encodeKey(record.key()), RecordCodec.encodeValue(record.value()));
        try {
            producer.send(message).get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaStoreException("Interrupted while writing to registry topic '" + topic + "'", e);
        } catch (ExecutionException e) {
            throw new SchemaStoreException("Write to registry topic '" + topic + "' failed: " + e.getCause(),
                    e.getCause());
        } catch (TimeoutException | RuntimeException e) {
            throw new SchemaStoreException("Write to registry topic '" + topic + "' not confirmed: " + e, e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }

    @Override
    public String describe() {
        return "Kafka topic '" + topic + "' on " + bootstrapServers;
    }
}
