package io.streamhouse.api.lineage;

import io.openlineage.client.OpenLineage.RunEvent;
import io.openlineage.client.OpenLineageClientUtils;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.domain.topic.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code lineage.events} from its beginning to its end offsets as of the call, with a consumer of its own (no
 * group, nothing committed), within a deadline. The topic is compacted and written a few times per start of a
 * processor, so a read is small; an event that is not a readable OpenLineage run event is skipped and reported.
 */
@ApplicationScoped
public class LineageLog {
    private static final Logger LOG = Logger.getLogger(LineageLog.class);
    static final Duration DEADLINE = Duration.ofSeconds(5);

    public record Skipped(int partition, long offset, String reason) {
    }

    public record Read(List<RunEvent> events, List<Skipped> skipped) {
    }

    /** The topic could not be read (broker away, topic missing) within the deadline. */
    public static final class Unavailable extends RuntimeException {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final ApiConfig config;

    public LineageLog(ApiConfig config) {
        this.config = config;
    }

    public Read readAll() {
        String topic = Topics.LINEAGE_EVENTS.name();
        Instant deadline = Instant.now().plus(DEADLINE);
        try (var consumer = new KafkaConsumer<>(io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(
                io.streamhouse.security.kafka.KafkaPrincipal.API).consumer(config.kafka().bootstrapServers(), Map.<String, Object>of(
                ConsumerConfig.CLIENT_ID_CONFIG, "streamhouse-api-lineage-reader",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis(),
                ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis())),
                new StringDeserializer(), new StringDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, DEADLINE);
            if (infos == null || infos.isEmpty()) {
                throw new Unavailable(topic + " does not exist (the platform creates it from the topic catalog)", null);
            }
            List<TopicPartition> partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, DEADLINE);
            List<RunEvent> events = new ArrayList<>();
            List<Skipped> skipped = new ArrayList<>();
            while (!caughtUp(consumer, end)) {
                Duration left = Duration.between(Instant.now(), deadline);
                if (left.isNegative() || left.isZero()) {
                    throw new Unavailable(topic + " was not read to its end within " + DEADLINE.toSeconds() + " s", null);
                }
                for (ConsumerRecord<String, String> r : consumer.poll(left.compareTo(Duration.ofMillis(200)) < 0 ? left : Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        continue; // a tombstone
                    }
                    try {
                        events.add(OpenLineageClientUtils.runEventFromJson(r.value()));
                    } catch (RuntimeException e) {
                        String reason = "not an OpenLineage run event: " + e.getClass().getSimpleName();
                        LOG.warnf("Skipped %s-%d@%d: %s", topic, r.partition(), r.offset(), reason);
                        skipped.add(new Skipped(r.partition(), r.offset(), reason));
                    }
                }
            }
            return new Read(events, skipped);
        } catch (KafkaException e) {
            throw new Unavailable(topic + " could not be read: " + e.getMessage(), e);
        }
    }

    private static boolean caughtUp(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> end) {
        for (var e : end.entrySet()) {
            if (consumer.position(e.getKey(), DEADLINE) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
