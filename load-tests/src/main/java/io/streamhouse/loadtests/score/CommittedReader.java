package io.streamhouse.loadtests.score;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads whole topics with Kafka's own consumer, {@code read_committed}: records of aborted transactions (an
 * exactly-once job that restarted) and of transactions still open are not returned, as for any reader of the topics.
 * No consumer group (partitions assigned, nothing committed), so it moves no one's offsets. Logs in as the load-tests
 * user, which may read every topic.
 */
final class CommittedReader implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration METADATA = Duration.ofSeconds(15);

    /** What was read, and whether the topics' ends stood still for the quiet period before the timeout. */
    record Read(List<ConsumerRecord<String, byte[]>> records, boolean settled, Duration waited) {
    }

    private final KafkaConsumer<String, byte[]> consumer;

    CommittedReader(String bootstrapServers) {
        Map<String, Object> config = new HashMap<>();
        config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "streamhouse-score");
        config.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        config.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) METADATA.toMillis());
        // What the score rests on: a reader's view of committed alerts, and no offsets of anyone's moved.
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS)
                .consumer(bootstrapServers, config), new StringDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Every committed record of {@code topics} (a missing topic has none), read until their end offsets have not moved
     * for {@code quiet} and everything up to them is read, or until {@code timeout} (then {@code settled} is false).
     * With a zero {@code quiet}: up to the ends as they are now.
     */
    Read read(List<String> topics, Duration quiet, Duration timeout) {
        long began = System.nanoTime();
        long deadline = began + timeout.toNanos();
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, METADATA);
            if (infos != null) {
                infos.forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
            }
        }
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        consumer.assign(partitions);
        if (partitions.isEmpty()) {
            return new Read(records, true, Duration.ZERO);
        }
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> lastEnds = Map.of();
        long stillSince = System.nanoTime();
        while (true) {
            // Under read_committed the end offset is the last stable offset: it moves when a transaction commits.
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, METADATA);
            if (!ends.equals(lastEnds)) {
                lastEnds = ends;
                stillSince = System.nanoTime();
            }
            while (behind(ends) && System.nanoTime() < deadline) {
                consumer.poll(POLL).forEach(records::add);
            }
            long now = System.nanoTime();
            if (!behind(ends) && now - stillSince >= quiet.toNanos()) {
                return new Read(records, true, Duration.ofNanos(now - began));
            }
            if (now >= deadline) {
                return new Read(records, false, Duration.ofNanos(now - began));
            }
            // Waits for the next commit (at most POLL), then looks at the ends again.
            consumer.poll(POLL).forEach(records::add);
        }
    }

    private boolean behind(Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey(), METADATA) < e.getValue()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        consumer.close();
    }
}
