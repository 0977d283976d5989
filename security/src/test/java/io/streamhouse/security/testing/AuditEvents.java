package io.streamhouse.security.testing;

import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Reads {@code audit.events} from its start, for the audit completeness tests of both apps: until {@code enough} holds
 * of what was read (or the deadline passes), and then on to the end offsets as they are at that moment, so an event
 * written twice a moment apart is read twice.
 */
public final class AuditEvents {

    public static List<AuditEvent> readUntil(String bootstrap, String registryUrl, Predicate<List<AuditEvent>> enough,
                                             Duration deadline) {
        var topic = Topics.AUDIT_EVENTS.name();
        var deserializer = new AvroDeserializer<>(new CachingSchemaRegistryClient(registryUrl), AuditEvent.class, false);
        List<AuditEvent> read = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Instant until = Instant.now().plus(deadline);
            Map<TopicPartition, Long> end = null;
            while (Instant.now().isBefore(until)) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    read.add(deserializer.deserialize(topic, record.value()));
                }
                if (end == null && enough.test(read)) {
                    end = consumer.endOffsets(partitions);
                }
                if (end != null && end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                    return read;
                }
            }
            return read;
        }
    }

    private AuditEvents() {
    }
}
