package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.AnomalyChecker;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole job on the seeded generator's traffic (about 10 % of it late, 2 % beyond the watermark's bound), scored
 * against the generator's ground truth: every planted anomaly must be alerted (recall 100 %) and at least 99.5 % of the
 * alerts must be planted ones. The final alerts are counted: an alert superseded by a revision (its attribute
 * {@code supersedes}) is replaced by it, as a reader of the alert topics folds them. The suite scores the issue's
 * 100,000 events (a few seconds since the matchers keep compact state); {@code -Dcep.scoring.events} and
 * {@code -Dcep.scoring.seed} pick others.
 */
class CepJobScoringTest {
    private static final Set<AlertType> PLANTED_TYPES = Set.of(AlertType.CARD_TESTING, AlertType.IMPOSSIBLE_TRAVEL,
            AlertType.ACCOUNT_TAKEOVER, AlertType.PARCEL_SLA_BREACH, AlertType.ENGINE_OVERHEATING);

    @Test
    void everyPlantedAnomalyIsAlertedAndAlmostNothingElse() throws Exception {
        int events = Integer.getInteger("cep.scoring.events", 100_000);
        long seed = Long.getLong("cep.scoring.seed", 42L);
        Generation generation = Generator.generate(GeneratorConfig.defaults(seed, events));

        long started = System.nanoTime();
        BoundedRun run = run(generation, 1);
        double seconds = (System.nanoTime() - started) / 1e9;
        try {
            List<Alert> raw = run.alerts().stream().filter(a -> PLANTED_TYPES.contains(a.getType())).toList();
            List<Anomaly> finalAlerts = fold(raw);
            AnomalyChecker.Score score = AnomalyChecker.score(generation.anomalies(), finalAlerts);
            AnomalyChecker.Score rawScore = AnomalyChecker.score(generation.anomalies(), raw.stream().map(CepJobScoringTest::anomalyOf).toList());
            long late = generation.lateEvents().size();
            System.out.printf(Locale.ROOT, "CEP scoring seed %d, %d events (%d late, %.1f %%; %d on the late topic), %.1f s: "
                            + "planted %d, final alerts %d, true %d -> recall %.2f %%, precision %.2f %% "
                            + "(raw alerts incl. revisions %d, raw precision %.2f %%); missed %s; spurious %s%n",
                    seed, events, late, 100.0 * late / events, run.lateEvents().size(), seconds, score.expected(),
                    score.found(), score.truePositives(), 100 * score.recall(), 100 * score.precision(), raw.size(),
                    100 * rawScore.precision(), score.missed(), score.spurious());

            assertThat(score.missed()).as("planted anomalies without an alert").isEmpty();
            assertThat(score.recall()).isEqualTo(1.0);
            assertThat(score.precision()).isGreaterThanOrEqualTo(0.995);
            assertThat(run.deadLetters()).isEmpty();
            assertThat(run.lateEvents()).as("late events are recorded on the late topics").isNotEmpty()
                    .allSatisfy(r -> assertThat(r.watermark).isGreaterThanOrEqualTo(r.occurredAt));
        } finally {
            run.forget();
        }
    }

    /** Runs the job on the generation's events, each topic in delivery order, and returns its outputs. */
    static BoundedRun run(Generation generation, int parallelism) throws Exception {
        BoundedRun run = inputs(generation);
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        CepJob.build(env, run.sources(), run.sinks(), CepJobConfig.defaults().forInMemorySources().withWatermarkPerEvent(true), run.registry());
        // The job passes records between chained operators without copying them: the scores are those of that job.
        assertThat(env.getConfig().isObjectReuseEnabled()).as("object reuse, as CepJob.build sets it").isTrue();
        env.execute("cep-scoring");
        return run;
    }

    /** A bounded run whose topics deliver the generation's events (each topic in delivery order) and the default rules. */
    static BoundedRun inputs(Generation generation) {
        Map<EventKind, List<Either<DeadLetter, SpecificRecord>>> byKind = new java.util.EnumMap<>(EventKind.class);
        for (GeneratedEvent e : generation.events()) {
            byKind.computeIfAbsent(e.kind(), k -> new ArrayList<>()).add(Either.Right(e.value()));
        }
        BoundedRun run = new BoundedRun();
        for (EventKind kind : EventKind.values()) {
            put(run, kind.topic(), byKind.getOrDefault(kind, List.of()));
        }
        run.input(Topics.RULES, io.streamhouse.domain.detection.PatternSettings.defaultDefinitions().stream()
                .map(d -> Either.<DeadLetter, io.streamhouse.domain.event.RuleDefinition>Right(d)).toList());
        return run;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void put(BoundedRun run, Topic<String, ?> topic, List<Either<DeadLetter, SpecificRecord>> records) {
        run.input((Topic) topic, (List) records);
    }

    /** The alerts a reader keeps: every alert not superseded by a later revision, less withdrawals. */
    static List<Anomaly> fold(List<Alert> alerts) {
        Set<String> superseded = new HashSet<>();
        for (Alert a : alerts) {
            String old = a.getAttributes().get(Alerts.SUPERSEDES);
            if (old != null) {
                superseded.add(old);
            }
        }
        return alerts.stream().filter(a -> !superseded.contains(a.getAlertId()))
                .filter(a -> a.getStatus() != io.streamhouse.domain.event.AlertStatus.WITHDRAWN)
                .map(CepJobScoringTest::anomalyOf).toList();
    }

    static Anomaly anomalyOf(Alert a) {
        return new Anomaly(a.getType(), a.getSubject().getKind(), a.getSubject().getId(), a.getMatchedEventIds(),
                a.getWindowStart(), a.getWindowEnd(), a.getAttributes());
    }
}
