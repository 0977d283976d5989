package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.PlatformOptions;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.streamhouse.detection.cep.CepEvents.payment;
import static io.streamhouse.detection.cep.CepEvents.scan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The job with {@code --engine cep} as it runs in production (Kafka sources, state on the heap, exactly-once Kafka
 * sinks), every job of the class on one MiniCluster: the CEP library's partial matches survive a stop with savepoint
 * and a restore from a retained checkpoint, a parcel's pending deadline survives a stop with savepoint and is alerted
 * when event time passes it, and a savepoint of the removed matcher's job (on RocksDB) restores into this one (on the
 * heap) with the sources' offsets. Each job starts at the end of the event topics (the other tests' events would put
 * its event time ahead) and lets a silent partition go idle at once, so event time is these events' alone. It has a
 * platform of its own: {@code CepJobIT} runs beside it and writes to the same event topics.
 */
class CepEngineIT {
    private static final ClassCluster CLUSTER = new ClassCluster();
    /** One MiniCluster for the class: every job here, and every restore of a savepoint or checkpoint, runs on it. */
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = CLUSTER.extension();

    private static EmbeddedPlatform ownPlatform;
    private final EmbeddedPlatform platform = ownPlatform;
    private final KafkaTestIo kafka = KafkaTestIo.onTheClassCluster(platform);

    @BeforeAll
    static void startThePlatform() {
        ownPlatform = EmbeddedPlatform.start(PlatformOptions.forTests());
    }

    @AfterAll
    static void stopThePlatform() {
        if (ownPlatform != null) {
            ownPlatform.close();
        }
    }

    @AfterEach
    void cancelLeftovers(@InjectMiniCluster MiniCluster cluster) throws Exception {
        ClassCluster.cancelLeftovers(cluster);
    }

    /**
     * The CEP library's partial match (two smalls, then a third) through both ways the job restarts: a stop with
     * savepoint, then a cancel whose newest checkpoint is retained and resumed from; the large payment then completes the
     * card test begun before both.
     */
    @Test
    void aCardTestBegunBeforeAStopWithSavepointAndACancelCompletesAfterBothRestores() throws Exception {
        String group = "cep-engine-restore-" + UUID.randomUUID();
        Path checkpoints = Files.createTempDirectory(Path.of("target"), "cep-engine-restore-");
        String card = "tok_engine_" + UUID.randomUUID();
        Instant t0 = Instant.parse("2026-08-01T10:00:00Z");
        kafka.startAtTheEnd(group);

        JobClient job = start(group, checkpoints);
        sendAndAwaitCheckpointed(job, Topics.TRANSACTION_REQUESTS, List.of(tx(payment("s1-" + card, card, "1.00", t0)),
                tx(payment("s2-" + card, card, "1.00", t0.plusSeconds(60)))));
        String savepoint = job.stopWithSavepoint(false, checkpoints.resolve("savepoints").toUri().toString(),
                SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);

        // From the savepoint: a third small one; cancel once a checkpoint has it (no alert written: no open
        // transaction left on an alert partition).
        job = start(group, checkpoints, "--restore", savepoint);
        sendAndAwaitCheckpointed(job, Topics.TRANSACTION_REQUESTS, List.of(tx(payment("s3-" + card, card, "1.00", t0.plusSeconds(120)))));
        job.cancel().get(30, TimeUnit.SECONDS);

        // From the newest retained checkpoint.
        assertThat(CepMain.latestRetainedCheckpoint(checkpoints.toString())).isPresent();
        job = start(group, checkpoints);
        try {
            kafka.send(List.of(tx(payment("big-" + card, card, "700.00", t0.plusSeconds(180))),
                    // moves the card's partition past the large payment (a mid-size payment: no card test uses it)
                    tx(payment("after-" + card, card, "10.00", t0.plusSeconds(181)))));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                    assertThat(alertsOf(card)).singleElement().satisfies(a -> {
                        assertThat(a.getPatternId()).isEqualTo("cep-card-testing");
                        assertThat(a.getMatchedEventIds()).containsExactly(
                                "evt-s1-" + card, "evt-s2-" + card, "evt-s3-" + card, "evt-big-" + card);
                    }));
        } finally {
            stop(job, checkpoints);
        }
    }

    @Test
    void aParcelNeverDeliveredIsAlertedAtItsDeadlineEvenAcrossAStopWithSavepoint() throws Exception {
        String group = "cep-engine-deadline-" + UUID.randomUUID();
        Path checkpoints = Files.createTempDirectory(Path.of("target"), "cep-engine-deadline-");
        String parcel = "parcel-engine-" + UUID.randomUUID();
        Instant t0 = Instant.parse("2026-08-10T08:00:00Z");
        Instant deadline = t0.plus(Duration.ofHours(4)).plus(PatternSettings.defaults().parcelSla().grace());
        kafka.startAtTheEnd(group);

        JobClient job = start(group, checkpoints);
        sendAndAwaitCheckpointed(job, Topics.PARCEL_SCANS, List.of(parcelScan(scan("out-" + parcel, parcel,
                ParcelStatus.OUT_FOR_DELIVERY, t0.plus(Duration.ofHours(4)), t0))));
        String savepoint = job.stopWithSavepoint(false, checkpoints.resolve("savepoints").toUri().toString(),
                SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);

        job = start(group, checkpoints, "--restore", savepoint);
        try {
            // Event time passes the deadline by a minute, far inside the partial match's within (2 days): another
            // parcel's scan. The deadline's timer and scan came through the savepoint.
            String other = "parcel-engine-other-" + UUID.randomUUID();
            kafka.send(List.of(parcelScan(scan("later-" + other, other, ParcelStatus.DELIVERED, null,
                    deadline.plus(Duration.ofMinutes(1))))));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                    assertThat(alertsOf(parcel)).singleElement().satisfies(a -> {
                        assertThat(a.getPatternId()).isEqualTo("cep-parcel-sla");
                        assertThat(a.getAttributes()).containsEntry("outcome", "never-delivered");
                        assertThat(a.getMatchedEventIds()).containsExactly("evt-out-" + parcel);
                    }));
        } finally {
            stop(job, checkpoints);
        }
    }

    /**
     * Upgrading from the removed matcher (#21, item 6: what a savepoint of its job carries into this one): the sources'
     * offsets carry over, the matcher's state is dropped ({@code --allow-non-restored-state}). The old job is gone, so
     * its savepoint is made by a job of the same shape as far as a savepoint goes ({@link #matcherShapedJob}: the same
     * sources and uids, and the matcher's uid {@code match-cep-card-testing} holding state per card, on RocksDB as the
     * matcher ran); the matcher's own savepoint was restored the same way before its removal (this test at f037078).
     * The library job runs under a fresh group id, which has no committed offsets: had the offsets not come from the
     * savepoint, its sources would start at the earliest offsets and alert the first card.
     */
    @Test
    void aSavepointOfTheRemovedMatchersJobRestoresIntoThisOneWithTheSourcesOffsets() throws Exception {
        String group = "cep-engine-switch-" + UUID.randomUUID();
        Path checkpoints = Files.createTempDirectory(Path.of("target"), "cep-engine-switch-");
        Instant t0 = Instant.parse("2026-08-20T10:00:00Z");
        String before = "tok_switch_before_" + UUID.randomUUID();
        String after = "tok_switch_after_" + UUID.randomUUID();
        kafka.startAtTheEnd(group);

        JobClient job = matcherShapedJob(group, checkpoints);
        sendAndAwaitCheckpointed(job, Topics.TRANSACTION_REQUESTS, cardTest(before, t0));
        String savepoint = job.stopWithSavepoint(false, checkpoints.resolve("savepoints").toUri().toString(),
                SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);

        String library = "cep-engine-switched-" + UUID.randomUUID();
        Path libraryCheckpoints = Files.createTempDirectory(Path.of("target"), "cep-engine-switched-");
        assertThatThrownBy(() -> start(library, libraryCheckpoints, "--restore", savepoint).getJobExecutionResult()
                .get(60, TimeUnit.SECONDS)).as("without the flag the matcher's state is refused")
                .hasStackTraceContaining("Cannot map checkpoint/savepoint state for operator");
        job = start(library, libraryCheckpoints, "--restore", savepoint, "--allow-non-restored-state");
        try {
            kafka.send(cardTest(after, t0.plus(Duration.ofHours(2))));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                    assertThat(alertsOf(after)).singleElement()
                            .satisfies(a -> assertThat(a.getMatchedEventIds()).hasSize(4)));
            awaitCommitted(library);
            assertThat(alertsOf(before)).as("the first card, read before the savepoint, is not read again").isEmpty();
        } finally {
            stop(job, libraryCheckpoints);
        }
    }

    /**
     * A job with what a savepoint of the removed matcher's job held: every source with its uid ({@code source-<topic>},
     * the rules at parallelism 1) and offsets, and a keyed operator with the matcher's uid for card testing, keeping a
     * value per card; on RocksDB, as the matcher's job ran by default.
     */
    private JobClient matcherShapedJob(String group, Path checkpoints) throws Exception {
        CepOptions options = CepOptions.parse(new String[]{"--bootstrap", platform.bootstrapServers(),
                "--registry", platform.schemaRegistryUrl().toString(), "--group-id", group,
                "--checkpoint-dir", checkpoints.toString(), "--state-backend", "rocksdb", "--parallelism", "2"},
                Map.of());
        StreamExecutionEnvironment env = kafka.environment(2, CepMain.configuration(options));
        env.enableCheckpointing(500, CheckpointingMode.EXACTLY_ONCE);
        CepSources sources = KafkaCepIo.sources(platform.bootstrapServers(), group,
                RegistryClientFactory.url(platform.schemaRegistryUrl().toString()));
        for (Topic<String, ? extends SpecificRecord> topic
                : CepJob.inputs()) {
            source(env, sources, topic, options.jobConfig());
        }
        return env.executeAsync("matcher-shaped");
    }

    private static <T extends SpecificRecord> void source(
            StreamExecutionEnvironment env, CepSources sources,
            Topic<String, T> topic, CepJobConfig config) {
        boolean rules = topic.equals(Topics.RULES);
        var stream = env.fromSource(sources.of(topic), rules ? EventTimeWatermarks.notEventTime()
                        : EventTimeWatermarks.<T>forEvents(config, topic.name()), topic.name(),
                WireDeserializationSchema.typeOf(topic.valueType()))
                .uid("source-" + topic.name()).name(topic.name());
        if (rules) {
            stream.setParallelism(1);
        }
        if (topic.equals(Topics.TRANSACTION_REQUESTS)) {
            stream.filter(e -> e.isRight()).map(e -> ((TransactionAuthorizationRequested) e.right()).getCardToken(),
                            Types.STRING)
                    .keyBy(card -> card, Types.STRING)
                    .process(new PaymentsPerCard(), Types.LONG)
                    .uid("match-cep-card-testing").sinkTo(new DiscardingSink<>());
        } else {
            stream.sinkTo(new DiscardingSink<>());
        }
    }

    /** Keyed state in the matcher's operator: how many payments each card made. */
    private static final class PaymentsPerCard
            extends KeyedProcessFunction<String, String, Long> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("payments",
                    Types.LONG));
        }

        @Override
        public void processElement(String card, Context ctx, Collector<Long> out) throws Exception {
            long n = count.value() == null ? 1 : count.value() + 1;
            count.update(n);
            out.collect(n);
        }
    }

    /** Three small payments and a large one, then a mid-size one that moves the card's partition past the large. */
    private static List<GeneratedEvent> cardTest(String card, Instant t) {
        return List.of(tx(payment("s1-" + card, card, "1.00", t)), tx(payment("s2-" + card, card, "1.00", t.plusSeconds(60))),
                tx(payment("s3-" + card, card, "1.00", t.plusSeconds(120))),
                tx(payment("big-" + card, card, "700.00", t.plusSeconds(180))),
                tx(payment("after-" + card, card, "10.00", t.plusSeconds(181))));
    }

    /**
     * Stops with a savepoint rather than cancelling: the exactly-once sink commits what it wrote and leaves no open
     * transaction on an alert partition, which would hold back the read_committed readers of the tests after this one
     * (CepJobIT) until the transaction timed out.
     */
    private static void stop(JobClient job, Path checkpoints) throws Exception {
        job.stopWithSavepoint(false, checkpoints.resolve("savepoints").toUri().toString(),
                SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);
    }

    private JobClient start(String group, Path checkpoints, String... more) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--idleness", "PT0.2S",
                "--max-out-of-orderness", "PT0S"));
        args.addAll(List.of(more));
        return kafka.start(group, checkpoints, args.toArray(String[]::new));
    }

    /**
     * The alerts about the subject that the sink wrote (earlier tests' cancelled jobs may hold read_committed readers
     * back: see {@link KafkaTestIo#alertsWritten}).
     */
    private List<Alert> alertsOf(String subject) {
        return kafka.alertsWritten().stream().filter(a -> a.getSubject().getId().equals(subject)).toList();
    }

    /** Writes the events and waits until a checkpoint of the job holds them. */
    private void sendAndAwaitCheckpointed(JobClient job, Topic<?, ?> topic, List<GeneratedEvent> events) throws Exception {
        var from = kafka.endOffsetsByPartition(topic);
        kafka.send(events);
        CLUSTER.awaitCheckpointed(job, from, kafka.endOffsetsByPartition(topic));
    }

    private void awaitCommitted(String group) {
        awaitCommitted(group, Topics.TRANSACTION_REQUESTS);
    }

    private void awaitCommitted(String group, Topic<?, ?> topic) {
        long end = kafka.endOffsets(topic);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> kafka.committed(group, topic) >= end);
    }

    private static GeneratedEvent tx(TransactionAuthorizationRequested t) {
        return new GeneratedEvent(0, EventKind.TRANSACTION, t.getCardToken(), t.getEnvelope().getEventId(),
                t.getEnvelope().getOccurredAt(), t, 0);
    }

    private static GeneratedEvent parcelScan(io.streamhouse.domain.event.ParcelScanned s) {
        return new GeneratedEvent(0, EventKind.PARCEL_SCAN, s.getParcelId(), s.getEnvelope().getEventId(),
                s.getEnvelope().getOccurredAt(), s, 0);
    }
}
