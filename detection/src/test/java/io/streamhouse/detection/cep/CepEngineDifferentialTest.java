package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Either;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CEP engine (Flink's CEP library, with the late-event reconciliation after each pattern) against the pure pattern
 * functions, on the seeded generator's traffic (10 % of it out of order, some of it behind the watermark): for every
 * pattern, the job's final alerts (not superseded, not withdrawn) are exactly the findings of
 * {@link SubjectPattern#find} over each subject's facts in event-time order — all of them, late or not. Every chain of
 * revisions is a line and no alert id is written twice. A second run gives every fact behind the watermark, shuffled
 * within each minute of event time: the final alerts are the same. The suite runs 30,000 events of a seed no other test
 * uses; {@code -Dcep.differential.events} and {@code -Dcep.differential.seed} pick others (a larger run as a command).
 */
class CepEngineDifferentialTest {
    private static final List<SubjectPattern<?>> PATTERNS = List.of(new CardTestingPattern(),
            new ImpossibleTravelPattern(), new AccountTakeoverPattern(), new ParcelSlaPattern(), new OverheatingPattern(),
            new MaintenanceDuePattern());

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(1).build());

    private static final int EVENTS = Integer.getInteger("cep.differential.events", 30_000);
    private static final long SEED = Long.getLong("cep.differential.seed", 2112L);
    private static final Generation GENERATION = Generator.generate(GeneratorConfig.defaults(SEED, EVENTS));

    private static StreamExecutionEnvironment environment() {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        return env;
    }

    @Test
    void theLibraryAlertsWhatThePurePatternFunctionsFindOnGeneratorTraffic() throws Exception {
        BoundedRun run = CepJobScoringTest.inputs(GENERATION);
        long started = System.nanoTime();
        try {
            StreamExecutionEnvironment env = environment();
            // RocksDB, the job's other state backend (--state-backend rocksdb): state read back from it is deserialised
            // (Avro arrays, not the lists written), which the heap backend of the other runs never shows. Flink's RocksDB needs frocksdb first on
            // the classpath: the cep-test execution has it (a focused -Dtest run of the default execution does not).
            RocksDbLibrary.requireFrocksdb();
            env.configure(new Configuration().set(StateBackendOptions.STATE_BACKEND, "rocksdb"));
            CepJob.build(env, run.sources(), run.sinks(), CepJobConfig.defaults().forInMemorySources().withWatermarkPerEvent(true),
                    run.registry());
            env.execute("cep-engine-differential");

            Set<String> onLateTopics = new HashSet<>();
            run.lateEvents().forEach(r -> onLateTopics.add(r.eventId));
            assertThat(run.lateFacts()).as("the CEP operators got facts behind their watermark, each on a late topic")
                    .isNotEmpty().allSatisfy(f -> assertThat(onLateTopics).contains(f.getFact().getEventId()));
            assertThat(run.deadLetters()).isEmpty();
            List<Alert> alerts = run.alerts();
            assertThat(alerts).as("revisions").anySatisfy(a -> assertThat(a.getAttributes()).containsKey(Alerts.SUPERSEDES));
            long withdrawn = alerts.stream().filter(a -> a.getStatus() == AlertStatus.WITHDRAWN).count();
            String summary = assertFinalAlertsAreTheFindings(alerts);
            System.out.printf(Locale.ROOT, "CEP engine differential seed %d, %d events, %d late facts, %d alerts "
                            + "written (%d withdrawals), %.1f s:%s%n", SEED, EVENTS, run.lateFacts().size(), alerts.size(),
                    withdrawn, (System.nanoTime() - started) / 1e9, summary);
        } finally {
            run.forget();
        }
    }

    @Test
    void everyFactBehindTheWatermarkAndShuffledEndsWithTheSameAlerts() throws Exception {
        long started = System.nanoTime();
        StreamExecutionEnvironment env = environment();
        Random random = new Random(SEED);
        DataStream<Alert> all = null;
        List<DataStream<DeadLetter>> deadLetters = new ArrayList<>();
        int facts = 0;
        for (SubjectPattern<?> pattern : PATTERNS) {
            List<StampedFact> shuffled = new ArrayList<>();
            PatternSettings defaults = PatternSettings.defaults();
            factsBySubject(pattern).forEach((subject, list) -> list.forEach(f -> shuffled.add(
                    new StampedFact(subject, f, Thresholds.of(defaults, pattern.kind())))));
            shuffled.sort(Comparator.comparingLong((StampedFact f) -> f.getFact().getOccurredAtMs()));
            shuffleWithinEachMinute(shuffled, random);
            facts += shuffled.size();
            DataStream<Alert> out = CepJob.onLibrary(
                    BehindTheWatermark.of(env.fromData(shuffled, new AvroTypeInfo<>(StampedFact.class))), pattern,
                    Topics.TRANSACTION_REQUESTS, null, deadLetters);
            all = all == null ? out : all.union(out);
        }
        List<Alert> alerts = new ArrayList<>();
        try (CloseableIterator<Alert> it = all.executeAndCollect("cep-engine-every-fact-late")) {
            it.forEachRemaining(alerts::add);
        }
        String summary = assertFinalAlertsAreTheFindings(alerts);
        System.out.printf(Locale.ROOT, "CEP engine, every fact late and shuffled, seed %d, %d events (%d facts), %d "
                + "alerts written, %.1f s:%s%n", SEED, EVENTS, facts, alerts.size(),
                (System.nanoTime() - started) / 1e9, summary);
    }

    /** Shuffles the facts (in event-time order) within each minute of event time. */
    private static void shuffleWithinEachMinute(List<StampedFact> facts, Random random) {
        int from = 0;
        while (from < facts.size()) {
            long minute = facts.get(from).getFact().getOccurredAtMs() / 60_000;
            int to = from;
            while (to < facts.size() && facts.get(to).getFact().getOccurredAtMs() / 60_000 == minute) {
                to++;
            }
            Collections.shuffle(facts.subList(from, to), random);
            from = to;
        }
    }

    /**
     * The alerts in effect at the end (no id written twice, chains are lines: {@link AlertsInEffect#of})
     * are, per pattern, exactly the pure function's findings over every fact; the per-pattern counts, for the log.
     */
    private static String assertFinalAlertsAreTheFindings(List<Alert> alerts) {
        Map<String, Alert> inEffect = AlertsInEffect.of(alerts);
        StringBuilder summary = new StringBuilder();
        for (SubjectPattern<?> pattern : PATTERNS) {
            Set<String> expected = expected(pattern).keySet();
            List<String> actual = inEffect.values().stream()
                    .filter(a -> a.getPatternId().equals(pattern.kind().ruleId())).map(Alert::getAlertId).toList();
            long hits = actual.stream().filter(expected::contains).count();
            summary.append(String.format(Locale.ROOT, " %s %d of %d (recall %.2f %%, precision %.2f %%);",
                    pattern.kind().ruleId(), actual.size(), expected.size(),
                    expected.isEmpty() ? 100.0 : 100.0 * hits / expected.size(),
                    actual.isEmpty() ? 100.0 : 100.0 * hits / actual.size()));
            Set<String> wrong = new HashSet<>(actual);
            wrong.removeAll(expected);
            Set<String> missing = new HashSet<>(expected);
            missing.removeAll(actual);
            StringBuilder why = new StringBuilder();
            Map<String, String> identities = expected(pattern);
            for (String id : missing) {
                why.append("\nMISSING ").append(identities.get(id));
            }
            for (String id : wrong) {
                Alert a = inEffect.get(id);
                why.append("\nWRONG ").append(a.getSubject().getId()).append(' ').append(a.getMatchedEventIds());
                String subject = a.getSubject().getId();
                for (Alert x : alerts) {
                    if (x.getSubject().getId().equals(subject) && x.getPatternId().equals(a.getPatternId())) {
                        why.append("\n   ").append(x.getAlertId(), 0, 8).append(' ').append(x.getStatus()).append(' ')
                                .append(x.getMatchedEventIds()).append(" sup=")
                                .append(x.getAttributes().get(Alerts.SUPERSEDES)).append(" end=").append(x.getWindowEnd());
                    }
                }
            }
            assertThat(actual).as(pattern.kind().ruleId() + " alerts in effect" + summary + why)
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(alerts).filteredOn(a -> a.getPatternId().equals(pattern.kind().ruleId()))
                    .allSatisfy(a -> assertThat(a.getPatternVersion()).isEqualTo(1));
        }
        return summary.toString();
    }

    /** Each subject's kept facts, every one of them (late or not), in event-time order (ties by event id). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<String, List<CepFact>> factsBySubject(SubjectPattern<?> pattern) {
        PatternSettings defaults = PatternSettings.defaults();
        SubjectPattern raw = pattern;
        Set<EventKind> input = switch (pattern.kind()) {
            case CARD_TESTING, IMPOSSIBLE_TRAVEL -> Set.of(EventKind.TRANSACTION);
            case PARCEL_SLA -> Set.of(EventKind.PARCEL_SCAN);
            case MAINTENANCE_DUE, ENGINE_OVERHEATING -> Set.of(EventKind.VEHICLE_TELEMETRY);
            case ACCOUNT_TAKEOVER -> Set.of(EventKind.CUSTOMER, EventKind.ORDER);
        };
        Map<String, List<CepFact>> bySubject = new TreeMap<>();
        for (GeneratedEvent e : GENERATION.events()) {
            if (!input.contains(e.kind())) {
                continue;
            }
            // Account takeover reads customer changes and orders as one stream (CepJob's customer activity).
            Object event = switch (e.kind()) {
                case CUSTOMER -> Either.Left(e.value());
                case ORDER -> Either.Right(e.value());
                default -> e.value();
            };
            java.util.Optional<CepFact> fact = raw.factOf(event);
            if (fact.isEmpty() || !pattern.keeps(fact.get(), defaults)) {
                continue;
            }
            bySubject.computeIfAbsent(raw.subject(event), s -> new ArrayList<>()).add(fact.get());
        }
        bySubject.values().forEach(facts -> facts.sort(
                Comparator.comparingLong(CepFact::getOccurredAtMs).thenComparing(CepFact::getEventId)));
        return bySubject;
    }

    /** Alert id -> identity of every finding of the pure function over each subject's facts. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<String, String> expected(SubjectPattern<?> pattern) {
        SubjectPattern raw = pattern;
        Map<String, String> found = new HashMap<>();
        factsBySubject(pattern).forEach((subject, facts) -> {
            for (Finding f : (List<Finding>) raw.find(subject, facts, PatternSettings.defaults(), Instant.MAX)) {
                found.put(Alerts.alertIdOf(f), f.identity());
            }
        });
        return found;
    }
}
