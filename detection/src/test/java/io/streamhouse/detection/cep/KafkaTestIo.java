package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Talks to the shared platform's broker for the CEP integration tests: writes events, reads what the job wrote. */
final class KafkaTestIo {
    private final EmbeddedPlatform platform;
    private final boolean onTheClassCluster;

    /** Each job in a MiniCluster of its own, as {@code CepMain --local} runs it. */
    KafkaTestIo(EmbeddedPlatform platform) {
        this(platform, false);
    }

    private KafkaTestIo(EmbeddedPlatform platform, boolean onTheClassCluster) {
        this.platform = platform;
        this.onTheClassCluster = onTheClassCluster;
    }

    /**
     * Every job on the test class's MiniCluster ({@link ClassCluster}), which the class registers as an extension.
     * A savepoint or retained checkpoint restores into a job on the same cluster just as into a new one (what a
     * restore reads is on the file system), and the class pays for one cluster start rather than one per job.
     */
    static KafkaTestIo onTheClassCluster(EmbeddedPlatform platform) {
        return new KafkaTestIo(platform, true);
    }

    /**
     * An environment for a job of these tests: on the class's MiniCluster (the context environment its extension
     * installs), or on a MiniCluster of the job's own.
     */
    StreamExecutionEnvironment environment(int parallelism, Configuration conf) {
        if (onTheClassCluster) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(parallelism);
            return env;
        }
        return StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    }

    void send(List<GeneratedEvent> events) throws Exception {
        try (KafkaSink sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : events) {
                sink.send(e);
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(30).toNanos());
        }
    }

    /**
     * One event on every partition of every event topic a day after {@code after}, on subjects of its own ("tick-…"):
     * moves every partition's watermark past everything sent before, so pending matches are evaluated.
     */
    void tick(List<GeneratedEvent> templates, Instant after) throws Exception {
        var client = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        try (var producer = new KafkaProducer<byte[], byte[]>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (GeneratedEvent t : tickEvents(templates, after)) {
                @SuppressWarnings({"unchecked", "rawtypes"})
                byte[] value = new io.streamhouse.domain.wire.AvroSerializer(client, t.value().getClass(), false)
                        .serialize(t.kind().topic().name(), t.value());
                for (int p = 0; p < t.kind().topic().partitions(); p++) {
                    producer.send(new ProducerRecord<>(t.kind().topic().name(), p,
                            t.key().getBytes(java.nio.charset.StandardCharsets.UTF_8), value)).get();
                }
            }
        }
    }

    private static List<GeneratedEvent> tickEvents(List<GeneratedEvent> templates, Instant after) {
        List<GeneratedEvent> ticks = new ArrayList<>();
        for (EventKind kind : EventKind.values()) {
            var template = templates.stream().filter(e -> e.kind() == kind).reduce((a, b) -> b);
            if (template.isEmpty()) {
                continue;
            }
            GeneratedEvent t = template.get();
            SpecificRecordBase copy = deepCopy(t.value());
            String key = "tick-" + UUID.randomUUID();
            Instant at = after.plus(Duration.ofDays(1));
            Envelope env = Envelope.newBuilder((Envelope) copy.get(0)).setEventId(key).setKey(key).setOccurredAt(at)
                    .setRecordedAt(at).build();
            copy.put(0, env);
            setSubject(copy, key);
            ticks.add(new GeneratedEvent(0, kind, key, key, at, copy, 0));
        }
        return ticks;
    }

    private static SpecificRecordBase deepCopy(SpecificRecord r) {
        SpecificRecordBase base = (SpecificRecordBase) r;
        return (SpecificRecordBase) base.getSpecificData().deepCopy(base.getSchema(), base);
    }

    private static void setSubject(SpecificRecordBase r, String key) {
        for (String field : List.of("cardToken", "customerId", "orderId", "parcelId", "vehicleId")) {
            if (r.getSchema().getField(field) != null) {
                r.put(field, key);
            }
        }
        if (r.getSchema().getField("amount") != null) {
            var money = (io.streamhouse.domain.event.Money) r.get("amount");
            money.setAmount(new java.math.BigDecimal("10.0000"));
        }
    }

    void sendRaw(String topic, byte[] key, byte[] value) throws Exception {
        try (var producer = new KafkaProducer<byte[], byte[]>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    /** Every committed record on the topics, from the beginning. */
    List<ConsumerRecord<byte[], byte[]>> readAll(List<String> topics) {
        return readAll(topics, "read_committed");
    }

    private List<ConsumerRecord<byte[], byte[]>> readAll(List<String> topics, String isolation) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String t : topics) {
                consumer.partitionsFor(t).forEach(p -> partitions.add(new TopicPartition(t, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < until && partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    List<Alert> alerts() {
        return alerts("read_committed");
    }

    /**
     * Every alert written, committed or not. A job cancelled by an earlier test may leave a Kafka transaction open on an
     * alert partition until its timeout (15 min), which holds read_committed readers of that partition back; a test
     * about detection rather than exactly-once visibility reads this way.
     */
    List<Alert> alertsWritten() {
        return alerts("read_uncommitted");
    }

    private List<Alert> alerts(String isolation) {
        var reader = new AvroDeserializer<>(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()),
                Alert.class, false);
        return readAll(List.of(Topics.FRAUD_ALERTS.name(), Topics.PARCEL_ALERTS.name(), Topics.MAINTENANCE_ALERTS.name()),
                isolation).stream().map(r -> reader.deserialize(r.topic(), r.value())).toList();
    }

    /** The group's committed offset summed over the topic's partitions (the Kafka source commits on checkpoints). */
    long committed(String groupId, Topic<?, ?> topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get();
            return offsets.entrySet().stream().filter(e -> e.getKey().topic().equals(topic.name()) && e.getValue() != null)
                    .mapToLong(e -> e.getValue().offset()).sum();
        }
    }

    /**
     * Commits the group's offsets at the end of every event topic, so a job of that group skips what other tests wrote
     * (and the event time it reached) and sees only what comes next; the rules are still read from the start.
     */
    void startAtTheEnd(String groupId) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new java.util.HashMap<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (EventKind kind : EventKind.values()) {
                List<TopicPartition> partitions = consumer.partitionsFor(kind.topic().name()).stream()
                        .map(p -> new TopicPartition(kind.topic().name(), p.partition())).toList();
                consumer.endOffsets(partitions).forEach((tp, end) -> offsets.put(tp, new OffsetAndMetadata(end)));
            }
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()))) {
            admin.alterConsumerGroupOffsets(groupId, offsets).all().get();
        }
    }

    /** The end offset of each of the topic's partitions. */
    Map<TopicPartition, Long> endOffsetsByPartition(Topic<?, ?> topic) {
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(topic.name(), p.partition())).toList();
            return consumer.endOffsets(partitions);
        }
    }

    long endOffsets(Topic<?, ?> topic) {
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(topic.name(), p.partition())).toList();
            return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * The job on this platform's Kafka in a MiniCluster in this JVM, as {@code CepMain --local} runs it (on the class's
     * cluster if this was made {@link #onTheClassCluster}).
     */
    JobClient start(String groupId, Path checkpoints, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--bootstrap", platform.bootstrapServers(),
                "--registry", platform.schemaRegistryUrl().toString(), "--group-id", groupId,
                "--checkpoint-dir", checkpoints.toString(), "--checkpoint-interval", "PT0.5S", "--parallelism", "2",
                "--idleness", "PT5M", "--local"));
        args.addAll(List.of(more));
        CepOptions options = CepOptions.parse(args.toArray(String[]::new), Map.of());
        var conf = CepMain.configuration(options);
        if (options.restore().isEmpty() && options.resumeLatest()) {
            CepMain.latestRetainedCheckpoint(checkpoints.toString())
                    .ifPresent(p -> conf.set(org.apache.flink.configuration.StateRecoveryOptions.SAVEPOINT_PATH, p));
        }
        StreamExecutionEnvironment env = environment(options.parallelism(), conf);
        CepMain.wire(env, options);
        return env.executeAsync(CepMain.JOB_NAME);
    }
}
