package io.streamhouse.replay;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads topics from their beginning to an end (by default the log ends when the read starts, once every transaction open
 * then is decided), read_committed,
 * with no consumer group: nothing is committed, so reading live topics never disturbs live readers.
 */
public final class TopicReader {
    private final String bootstrap;
    private final Admin admin;
    private final Duration timeout;

    public TopicReader(String bootstrap, Admin admin, Duration timeout) {
        this.bootstrap = bootstrap;
        this.admin = admin;
        this.timeout = timeout;
    }

    /** The log ends now, once no transaction open now is still undecided ({@link Groups#settledEnds}). */
    Map<TopicPartition, Long> ends(String topic) {
        try {
            return Groups.settledEnds(Groups.Log.of(admin), List.of(topic), timeout, Duration.ofMillis(100));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public void readAll(String topic, Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        read(ends(topic), handler);
    }

    /** Every committed record of the partitions of {@code ends} before their end offset. */
    void read(Map<TopicPartition, Long> ends, Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        // As ConsumerPerformance does (2 MB there): the default 64 KB socket buffer caps each fetch's window.
        config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1024 * 1024);
        try (var consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.REPLAY)
                .consumer(bootstrap, config), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            Instant deadline = Instant.now().plus(timeout);
            Map<TopicPartition, Long> open = new HashMap<>(ends);
            while (true) {
                open.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
                if (open.isEmpty()) {
                    return;
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new Endpoints.EnvironmentException("reading " + open.keySet() + " did not reach the end within "
                            + timeout.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Long end = ends.get(new TopicPartition(r.topic(), r.partition()));
                    if (end != null && r.offset() < end) {
                        handler.accept(r);
                    }
                }
            }
        }
    }
}
