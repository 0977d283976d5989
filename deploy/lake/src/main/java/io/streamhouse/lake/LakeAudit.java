package io.streamhouse.lake;

import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * "Iceberg equals Kafka": a landed topic's rows, identified by their source (partition, offset), read through an
 * Iceberg scan of the table's current snapshot — never by listing files, since a killed or retried writer leaves
 * orphan files — against what a read_committed consumer reads of the topic now, less what the sink dead-lettered.
 * Used by the lake's integration tests and, in a child JVM ({@link LakeAuditMain}), by {@code replay drill}.
 */
public final class LakeAudit {

    /** A row's identity in its topic. */
    public record Coordinate(int partition, long offset) implements Comparable<Coordinate> {
        @Override
        public int compareTo(Coordinate o) {
            return partition != o.partition ? Integer.compare(partition, o.partition) : Long.compare(offset, o.offset);
        }

        @Override
        public String toString() {
            return partition + "@" + offset;
        }
    }

    /**
     * One topic's comparison. {@code missing}: read_committed records (not dead-lettered) without a row;
     * {@code extra}: rows no committed record has (an aborted record, or one read past); {@code duplicateRows}: rows
     * beyond the first with the same coordinate.
     */
    public record TopicAudit(String topic, long rows, long committed, long deadLettered, long missing, long extra,
                             long duplicateRows, List<String> examples) {
        public boolean equal() {
            return missing == 0 && extra == 0 && duplicateRows == 0;
        }
    }

    private static final int EXAMPLES = 5;

    /** Pure: the table's rows against the topic's committed records and the dead-lettered ones. */
    public static TopicAudit compare(String topic, List<Coordinate> rows, Set<Coordinate> committed, Set<Coordinate> deadLettered) {
        Set<Coordinate> expected = new HashSet<>(committed);
        expected.removeAll(deadLettered);
        Set<Coordinate> seen = new HashSet<>();
        List<String> examples = new ArrayList<>();
        long duplicates = 0, extra = 0;
        for (Coordinate c : rows) {
            if (!seen.add(c)) {
                duplicates++;
                example(examples, "twice " + c);
            } else if (!expected.contains(c)) {
                extra++;
                example(examples, "extra " + c);
            }
        }
        long missing = 0;
        for (Coordinate c : new TreeSet<>(expected)) {
            if (!seen.contains(c)) {
                missing++;
                example(examples, "missing " + c);
            }
        }
        return new TopicAudit(topic, rows.size(), committed.size(), deadLettered.size(), missing, extra, duplicates, examples);
    }

    /** Every row's (partition, offset) in the current snapshot of {@code topic}'s table, through an Iceberg scan. */
    public static List<Coordinate> landed(Catalog catalog, String topic) {
        Table t = catalog.loadTable(TableIdentifier.of(LakeNames.NAMESPACE, LakeNames.tableName(topic)));
        List<Coordinate> out = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).select(LakeNames.PARTITION_COLUMN, LakeNames.OFFSET_COLUMN).build()) {
            for (Record r : rows) {
                out.add(new Coordinate((Integer) r.getField(LakeNames.PARTITION_COLUMN), (Long) r.getField(LakeNames.OFFSET_COLUMN)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot scan " + t.name(), e);
        }
        return out;
    }

    /** What a read_committed consumer reads of {@code topic}, up to its end now (non-null values only). */
    public static Set<Coordinate> readCommitted(String bootstrap, String topic, Duration timeout) {
        Set<Coordinate> out = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(bootstrap, topic, timeout)) {
            if (r.value() != null) {
                out.add(new Coordinate(r.partition(), r.offset()));
            }
        }
        return out;
    }

    /** Source coordinates of every record the sink dead-lettered to {@code deadLetterTopic}, by source topic. */
    public static Map<String, Set<Coordinate>> deadLettered(String bootstrap, String deadLetterTopic, Duration timeout) {
        Map<String, Set<Coordinate>> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(bootstrap, deadLetterTopic, timeout)) {
            Map<String, String> h = headers(r);
            String topic = h.get("__connect.errors.topic");
            if (topic != null) {
                out.computeIfAbsent(topic, t -> new HashSet<>()).add(new Coordinate(
                        Integer.parseInt(h.get("__connect.errors.partition")), Long.parseLong(h.get("__connect.errors.offset"))));
            }
        }
        return out;
    }

    /** Every record of {@code topic} a read_committed consumer reads, from the beginning to the end offsets of now. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, Duration timeout) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM)
                .consumer(bootstrap, Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end " + end + " within " + timeout.toSeconds() + " s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            return out;
        }
    }

    /** A record's headers as strings (the Connect error headers are UTF-8). */
    public static Map<String, String> headers(ConsumerRecord<?, ?> r) {
        Map<String, String> h = new HashMap<>();
        for (Header header : r.headers()) {
            h.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
        }
        return h;
    }

    private static void example(List<String> examples, String text) {
        if (examples.size() < EXAMPLES) {
            examples.add(text);
        }
    }

    private LakeAudit() {
    }
}
