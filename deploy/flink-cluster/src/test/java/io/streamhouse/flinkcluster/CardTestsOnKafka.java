package io.streamhouse.flinkcluster;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The CEP job's side of the cluster tests: its shaded jar and arguments, card tests planted on the shared platform's
 * payments topic, and the alerts read back with Kafka's own read_committed consumer.
 */
final class CardTestsOnKafka {
    /** Built by deploy/flink-job ({@code package}); failsafe passes its path. */
    static final Path JOB_JAR = Path.of(System.getProperty("streamhouse.flink-job.jar",
            "../flink-job/target/streamhouse-flink-job-0.1.0-SNAPSHOT-shaded.jar"));
    static final String ENTRY_CLASS = "io.streamhouse.detection.cep.CepMain";

    private final EmbeddedPlatform platform;

    CardTestsOnKafka(EmbeddedPlatform platform) {
        this.platform = platform;
        if (!Files.isRegularFile(JOB_JAR)) {
            throw new IllegalStateException(JOB_JAR + " is missing: ./mvnw -pl deploy/flink-job -am package -DskipTests");
        }
    }

    /**
     * The job as a cluster runs it, on RocksDB, event time that moves as soon as the other inputs are quiet (0.5 s) with
     * no disorder allowed, a checkpoint (and so an alert commit) every second. Lineage off: a jar run through REST
     * returns from {@code main} as soon as the job is submitted, so the run would be reported complete at once.
     */
    FlinkRestClient.Submission submission(String group) {
        return FlinkRestClient.Submission.of(ENTRY_CLASS, List.of("--bootstrap", platform.bootstrapServers(),
                "--registry", platform.schemaRegistryUrl().toString(), "--group-id", group, "--parallelism", "2",
                "--state-backend", "rocksdb", "--checkpoint-interval", "PT1S", "--idleness", "PT0.5S",
                "--max-out-of-orderness", "PT0S", "--lineage-topic", "false"), 2);
    }

    /** A card test on {@code card} from {@code t}: three small payments, a large one, and a later one that moves time on. */
    static List<GeneratedEvent> cardTest(String card, Instant t) {
        return List.of(tx("s0-" + card, card, "1.00", t), tx("s1-" + card, card, "1.00", t.plusSeconds(1)),
                tx("s2-" + card, card, "1.00", t.plusSeconds(2)), tx("big-" + card, card, "900.00", t.plusSeconds(10)),
                tx("next-" + card, card, "10.00", t.plusSeconds(11)));
    }

    /** The event ids a card test's alert names, in order. */
    static List<String> matchedIds(String card) {
        return List.of("evt-s0-" + card, "evt-s1-" + card, "evt-s2-" + card, "evt-big-" + card);
    }

    private static GeneratedEvent tx(String id, String card, String amount, Instant at) {
        var t = SampleEvents.transaction(id, card, amount, "EUR", Merchants.GROCER_ROTTERDAM, at);
        return new GeneratedEvent(0, EventKind.TRANSACTION, card, t.getEnvelope().getEventId(), at, t, 0);
    }

    void send(List<GeneratedEvent> events) throws Exception {
        try (KafkaSink sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : events) {
                sink.send(e);
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(30).toNanos());
        }
    }

    /** Every committed alert on the fraud alert topic (Kafka's read_committed consumer), from the beginning. */
    List<Alert> committedAlerts() {
        var reader = new AvroDeserializer<>(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()),
                Alert.class, false);
        List<Alert> out = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            String topic = Topics.FRAUD_ALERTS.name();
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < until && partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> out.add(reader.deserialize(r.topic(), r.value())));
            }
        }
        return out;
    }

    /**
     * Commits the group's offsets at the end of every event topic: the job sees only what comes next, not the event
     * time other tests on the shared broker reached.
     */
    void startAtTheEnd(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (EventKind kind : EventKind.values()) {
                List<TopicPartition> partitions = consumer.partitionsFor(kind.topic().name()).stream()
                        .map(p -> new TopicPartition(kind.topic().name(), p.partition())).toList();
                consumer.endOffsets(partitions).forEach((tp, end) -> offsets.put(tp, new OffsetAndMetadata(end)));
            }
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()))) {
            admin.alterConsumerGroupOffsets(group, offsets).all().get();
        }
    }
}
