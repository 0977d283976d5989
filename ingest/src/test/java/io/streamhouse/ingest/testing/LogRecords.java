package io.streamhouse.ingest.testing;

import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.SharedPlatform;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** Reads what is on a topic of the shared test platform, for assertions: everything up to its end now, or until a record turns up. */
public final class LogRecords {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static CachingSchemaRegistryClient registry;
    private static final Map<String, AvroDeserializer<?>> DESERIALIZERS = new ConcurrentHashMap<>();

    /** Every record of every partition, from the beginning to the end offsets as they are when called. */
    public static List<ConsumerRecord<String, byte[]>> all(Topic<?, ?> topic) {
        try (var consumer = consumer()) {
            var partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(topic.name(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
            long until = System.nanoTime() + DEADLINE.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > until) {
                    throw new AssertionError("could not read " + topic.name() + " to its end " + end + " within " + DEADLINE);
                }
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        records.add(r);
                    }
                }
            }
            return records;
        }
    }

    /** Waits (with a deadline) until a record matching {@code wanted} is on the topic, and returns it. */
    public static ConsumerRecord<String, byte[]> awaitOne(Topic<?, ?> topic, Predicate<ConsumerRecord<String, byte[]>> wanted) {
        try (var consumer = consumer()) {
            var partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(topic.name(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long until = System.nanoTime() + DEADLINE.toNanos();
            while (System.nanoTime() < until) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (wanted.test(r)) {
                        return r;
                    }
                }
            }
            throw new AssertionError("no matching record on " + topic.name() + " within " + DEADLINE);
        }
    }

    /**
     * Waits (with a deadline) for the record at this partition and offset — an accepted event's own coordinates — reading
     * from there, not from the topic's start (the fuzz test leaves tens of thousands of records before it).
     */
    public static ConsumerRecord<String, byte[]> awaitAt(Topic<?, ?> topic, int partition, long offset) {
        try (var consumer = consumer()) {
            TopicPartition tp = new TopicPartition(topic.name(), partition);
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long until = System.nanoTime() + DEADLINE.toNanos();
            while (System.nanoTime() < until) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() == offset) {
                        return r;
                    }
                }
            }
            throw new AssertionError("no record at " + tp + " offset " + offset + " within " + DEADLINE);
        }
    }

    /**
     * One deserializer per topic: it keeps its reader per writer schema, so decoding a topic's tens of thousands of
     * records resolves the writer and reader schemas once, not once per record.
     */
    @SuppressWarnings("unchecked")
    public static <V extends SpecificRecord> V decode(Topic<String, V> topic, byte[] raw) {
        var deserializer = (AvroDeserializer<V>) DESERIALIZERS.computeIfAbsent(topic.name(),
                name -> new AvroDeserializer<>(registry(), topic.valueType(), false));
        return deserializer.deserialize(topic.name(), raw);
    }

    private static synchronized CachingSchemaRegistryClient registry() {
        if (registry == null) {
            registry = new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString());
        }
        return registry;
    }

    /** The records of {@code topic} whose value is an event with this envelope event id. */
    public static <V extends SpecificRecord> long countByEventId(Topic<String, V> topic, String eventId) {
        return all(topic).stream()
                .map(r -> decode(topic, r.value()))
                .filter(v -> eventId.equals(((Envelope) ((GenericRecord) v).get("envelope")).getEventId()))
                .count();
    }

    private static KafkaConsumer<String, byte[]> consumer() {
        return new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new ByteArrayDeserializer());
    }

    private LogRecords() {
    }
}
