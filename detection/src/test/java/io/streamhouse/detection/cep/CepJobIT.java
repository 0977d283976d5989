package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.LateEventHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.AnomalyChecker;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.streamhouse.detection.cep.CepEvents.payment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The job as it runs in production, on the shared platform's broker and registry: Kafka sources, state on the heap,
 * exactly-once Kafka sinks committed with checkpoints; every job of the class on one MiniCluster.
 */
class CepJobIT {
    private static final ClassCluster CLUSTER = new ClassCluster();
    /** One MiniCluster for the class: every job here, and every restore of a savepoint or checkpoint, runs on it. */
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = CLUSTER.extension();

    private final EmbeddedPlatform platform = SharedPlatform.get();
    private final KafkaTestIo kafka = KafkaTestIo.onTheClassCluster(platform);

    @AfterEach
    void cancelLeftovers(@InjectMiniCluster MiniCluster cluster) throws Exception {
        ClassCluster.cancelLeftovers(cluster);
    }

    @Test
    void generatedTrafficOnKafkaYieldsEveryPlantedAlertExactlyOnceAndUnreadableRecordsGoToTheDlq() throws Exception {
        Generation g = Generator.generate(GeneratorConfig.defaults(4242, 4_000)
                .withStart(Instant.parse("2026-05-04T08:00:00Z")));
        // The job reads only this generation. Read from the start, a partition holding an earlier test's later events
        // has its watermark there already, stops holding the job's watermark back, and its share of the generation can
        // fall behind the watermark the other partitions reach: a planted alert then goes to the late topic instead.
        String group = "cep-it-" + UUID.randomUUID();
        kafka.startAtTheEnd(group);
        kafka.send(g.events());
        byte[] garbage = ("not avro " + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
        kafka.sendRaw(Topics.TRANSACTION_REQUESTS.name(), "tok_garbage".getBytes(StandardCharsets.UTF_8), garbage);
        Instant last = g.events().stream().map(GeneratedEvent::occurredAt).max(Instant::compareTo).orElseThrow();
        Path checkpoints = Files.createTempDirectory(Path.of("target"), "cep-it-");

        JobClient job = kafka.start(group, checkpoints);
        try {
            kafka.tick(g.events(), last);
            Set<String> ours = new HashSet<>();
            g.events().forEach(e -> ours.add(e.eventId()));
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                List<Alert> alerts = kafka.alerts().stream()
                        .filter(a -> ours.containsAll(a.getMatchedEventIds())).toList();
                AnomalyChecker.Score score = AnomalyChecker.score(g.anomalies(), plantedTypes(CepJobScoringTest.fold(alerts)));
                assertThat(score.missed()).as(() -> "alerts of the missed subjects, committed or not: " + kafka.alertsWritten().stream()
                        .filter(a -> score.missed().stream().anyMatch(x -> x.subjectId().equals(a.getSubject().getId())))
                        .map(a -> a.getAlertId() + " " + a.getStatus() + " " + a.getMatchedEventIds() + " "
                                + a.getAttributes()).toList() + "; their events recorded late: " + kafka.readAll(List.of(
                                Topics.lateOf(Topics.TRANSACTION_REQUESTS).name())).stream()
                                .filter(r -> score.missed().stream().anyMatch(x -> new String(r.value(),
                                        StandardCharsets.ISO_8859_1).contains(x.subjectId()))).count()).isEmpty();
                assertThat(score.spurious()).as(() -> "alerts of the spurious subjects: " + alerts.stream()
                        .filter(a -> score.spurious().stream().anyMatch(x -> x.subjectId().equals(a.getSubject().getId())))
                        .map(a -> a.getAlertId() + " " + a.getMatchedEventIds() + " " + a.getAttributes()).toList()).isEmpty();
                assertThat(alerts).extracting(Alert::getAlertId).doesNotHaveDuplicates();
            });

            List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(List.of(Topics.deadLetterOf(Topics.TRANSACTION_REQUESTS).name()));
            assertThat(dead).anySatisfy(r -> {
                assertThat(r.value()).isEqualTo(garbage);
                assertThat(header(r, DeadLetterHeaders.REASON)).contains("payments.transactions.requested");
                assertThat(header(r, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(Topics.TRANSACTION_REQUESTS.name());
            });
            // The watermark is now past the tick's day minus 30 s: an event of the generation's last hour is late.
            String lateId = "late-" + UUID.randomUUID();
            kafka.send(List.of(tx(payment(lateId, "tok_late_" + UUID.randomUUID(), "10.00", last))));
            String lateTopic = Topics.lateOf(Topics.TRANSACTION_REQUESTS).name();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertThat(kafka.readAll(List.of(lateTopic))).as("the late event is recorded with the reason")
                            .anySatisfy(r -> {
                                assertThat(new String(r.value(), StandardCharsets.ISO_8859_1)).contains("evt-" + lateId);
                                assertThat(header(r, LateEventHeaders.REASON)).contains("behind the watermark");
                                assertThat(header(r, LateEventHeaders.SOURCE_TOPIC)).isEqualTo(Topics.TRANSACTION_REQUESTS.name());
                            }));
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPartialMatchSurvivesAStopWithSavepointAndACancelWithARetainedCheckpoint() throws Exception {
        String group = "cep-restore-" + UUID.randomUUID();
        Path checkpoints = Files.createTempDirectory(Path.of("target"), "cep-restore-");
        Instant t0 = Instant.parse("2026-06-01T10:00:00Z");
        String card = "tok_restore_" + UUID.randomUUID();

        // 1. Two small payments, then stop with a savepoint (once a checkpoint holds the topic to its end: the job
        // reads it from the start).
        JobClient job = kafka.start(group, checkpoints);
        kafka.send(List.of(tx(payment("s1-" + card, card, "1.00", t0)), tx(payment("s2-" + card, card, "1.00", t0.plusSeconds(60)))));
        var read = kafka.endOffsetsByPartition(Topics.TRANSACTION_REQUESTS);
        CLUSTER.awaitCheckpointed(job, Map.of(), read);
        String savepoint = job.stopWithSavepoint(false, checkpoints.resolve("savepoints").toUri().toString(),
                SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);

        // 2. From the savepoint: a third small one; cancel once a checkpoint has it (the checkpoint is retained).
        job = kafka.start(group, checkpoints, "--restore", savepoint);
        kafka.send(List.of(tx(payment("s3-" + card, card, "1.00", t0.plusSeconds(120)))));
        CLUSTER.awaitCheckpointed(job, read, kafka.endOffsetsByPartition(Topics.TRANSACTION_REQUESTS));
        job.cancel().get(30, TimeUnit.SECONDS);

        // 3. From the newest retained checkpoint: the large payment completes the card test begun before both restarts.
        assertThat(CepMain.latestRetainedCheckpoint(checkpoints.toString())).isPresent();
        job = kafka.start(group, checkpoints);
        try {
            kafka.send(List.of(tx(payment("big-" + card, card, "700.00", t0.plusSeconds(180)))));
            kafka.tick(List.of(tx(payment("tick-" + card, card, "10.00", t0))), t0);
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertThat(kafka.alerts().stream().filter(a -> a.getSubject().getId().equals(card)).toList())
                            .singleElement().satisfies(a -> assertThat(a.getMatchedEventIds()).containsExactly(
                                    "evt-s1-" + card, "evt-s2-" + card, "evt-s3-" + card, "evt-big-" + card)));
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Event sources go idle when a topic is quiet for the idleness timeout (a quiet night); the matchers' event time
     * must then wait for the events, not jump to the end of time because their other input, the rules, holds nothing
     * back. It did jump before: every burst after the first quiet spell went undetected until a restart.
     */
    @Test
    void aBurstAfterTheEventsWentIdleIsStillDetected() throws Exception {
        String group = "cep-idle-" + UUID.randomUUID();
        Path checkpoints = Files.createTempDirectory(Path.of("target"), "cep-idle-");
        String card = "tok_idle_" + UUID.randomUUID();
        Instant t0 = Instant.parse("2026-07-01T10:00:00Z");
        kafka.startAtTheEnd(group); // the other tests' events would put this job's event time past t0
        JobClient job = kafka.start(group, checkpoints, "--idleness", "PT0.2S", "--max-out-of-orderness", "PT0S");
        try {
            for (int burst = 0; burst < 2; burst++) {
                Instant t = t0.plus(Duration.ofHours(burst));
                String large = "idle-" + burst + "L-" + card;
                var from = kafka.endOffsetsByPartition(Topics.TRANSACTION_REQUESTS);
                kafka.send(List.of(tx(payment("idle-" + burst + "s0-" + card, card, "1.00", t)),
                        tx(payment("idle-" + burst + "s1-" + card, card, "1.00", t.plusSeconds(1))),
                        tx(payment("idle-" + burst + "s2-" + card, card, "1.00", t.plusSeconds(2))),
                        tx(payment(large, card, "900.00", t.plusSeconds(10))),
                        // moves the card's partition past the large payment
                        tx(payment("idle-" + burst + "n-" + card, card, "10.00", t.plusSeconds(11)))));
                // the earlier tests' cancelled jobs may hold read_committed readers back, so this reads what the sink
                // wrote (see KafkaTestIo.alertsWritten)
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                        assertThat(kafka.alertsWritten()).as("burst starting " + t)
                                .anySatisfy(a -> assertThat(a.getMatchedEventIds()).contains("evt-" + large)));
                // a checkpoint (every 0.5 s) begun after the burst was read has completed: by then the quiet topic
                // is idle (0.2 s)
                CLUSTER.awaitCheckpointed(job, from, kafka.endOffsetsByPartition(Topics.TRANSACTION_REQUESTS));
            }
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    private static GeneratedEvent tx(io.streamhouse.domain.event.TransactionAuthorizationRequested t) {
        return new GeneratedEvent(0, io.streamhouse.loadtests.generator.EventKind.TRANSACTION, t.getCardToken(),
                t.getEnvelope().getEventId(), t.getEnvelope().getOccurredAt(), t, 0);
    }

    private static List<Anomaly> plantedTypes(List<Anomaly> alerts) {
        return alerts.stream().filter(a -> a.type() != io.streamhouse.domain.event.AlertType.MAINTENANCE_DUE).toList();
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
