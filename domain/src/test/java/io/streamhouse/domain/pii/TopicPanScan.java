package io.streamhouse.domain.pii;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker half of the PAN scan that ingest's and the api's tests share: every record of every topic, internal ones
 * included, from the start to the end offsets as they are when it starts; key, value, every header name and value go
 * through a {@link PanScanner}. A {@code traceparent} header is not scanned but checked to be a W3C trace context and
 * nothing else: its 48 random hex digits hold a Luhn-valid run often enough to make a text scan meaningless.
 */
public final class TopicPanScan {
    /** {@code 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>}. */
    public static final String TRACEPARENT = "00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}";

    /** Scans every record on the broker into {@code scanner}; returns how many records it read. */
    public static long everyRecord(PanScanner scanner, String bootstrapServers) throws Exception {
        Set<String> topics;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
        }
        long count = 0;
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted",
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                assertThat(System.nanoTime()).as("read every topic to its end within 60 s").isLessThan(until);
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    String where = r.topic() + "/" + r.partition() + "@" + r.offset();
                    scanner.scan(where + " key", r.key());
                    scanner.scan(where + " value", r.value());
                    for (Header h : r.headers()) {
                        scanner.scan(where + " header " + h.key(), h.key());
                        if (h.key().equals("traceparent")) {
                            assertThat(new String(h.value(), StandardCharsets.US_ASCII))
                                    .as(where + " header traceparent").matches(TRACEPARENT);
                        } else {
                            scanner.scan(where + " header " + h.key(), h.value());
                        }
                    }
                    count++;
                }
            }
        }
        return count;
    }

    private TopicPanScan() {
    }
}
