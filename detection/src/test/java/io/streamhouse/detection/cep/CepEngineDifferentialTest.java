package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CEP engine (Flink's CEP library) against the pure pattern functions, on the seeded generator's traffic: for every
 * pattern the library carries, the job's final alerts (those no other alert supersedes; the only revision is a parcel
 * delivered after its deadline was reported) are exactly the findings of {@link SubjectPattern#find} over each
 * subject's facts in event-time order, less the facts the CEP operator got behind its watermark (the engine does not
 * reconcile late events yet; they are on the late topics). The suite runs 30,000 events of a seed no other test uses;
 * {@code -Dcep.differential.events} and {@code -Dcep.differential.seed} pick others (a larger run as a command).
 */
class CepEngineDifferentialTest {

    @Test
    void theLibraryAlertsWhatThePurePatternFunctionsFindOnGeneratorTraffic() throws Exception {
        int events = Integer.getInteger("cep.differential.events", 30_000);
        long seed = Long.getLong("cep.differential.seed", 2112L);
        Generation generation = Generator.generate(GeneratorConfig.defaults(seed, events));

        BoundedRun run = CepJobScoringTest.inputs(generation);
        long started = System.nanoTime();
        try {
            Configuration conf = new Configuration();
            conf.set(PipelineOptions.GENERIC_TYPES, false);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
            CepJob.build(env, run.sources(), run.sinks(), CepJobConfig.defaults().withWatermarkPerEvent(true)
                    .withEngine(CepJobConfig.Engine.CEP), run.registry());
            env.execute("cep-engine-differential");

            Set<String> lateFacts = new HashSet<>();
            for (StampedFact f : run.lateFacts()) {
                lateFacts.add(f.getFact().getKind() + "|" + f.getFact().getEventId());
            }
            Set<String> onLateTopics = new HashSet<>();
            run.lateEvents().forEach(r -> onLateTopics.add(r.eventId));
            assertThat(run.lateFacts()).as("every fact a CEP operator got late is on a late topic")
                    .isNotEmpty().allSatisfy(f -> assertThat(onLateTopics).contains(f.getFact().getEventId()));
            List<Alert> alerts = run.alerts();
            assertThat(run.deadLetters()).isEmpty();
            Map<String, Alert> byId = new HashMap<>();
            alerts.forEach(a -> byId.put(a.getAlertId(), a));
            Set<String> superseded = new HashSet<>();
            assertThat(alerts).as("the library's two revisions: a parcel delivered after its never-delivered alert, "
                            + "and an overheating run grown by one reading")
                    .filteredOn(a -> LibraryPatterns.onLibrary(PatternSettings.Kind.ofRuleKind(a.getPatternId())))
                    .isNotEmpty().filteredOn(a -> a.getAttributes().containsKey(Alerts.SUPERSEDES))
                    .isNotEmpty().allSatisfy(a -> {
                        Alert before = byId.get(a.getAttributes().get(Alerts.SUPERSEDES));
                        assertThat(before).as("the superseded alert was emitted").isNotNull();
                        assertThat(before.getSubject()).isEqualTo(a.getSubject());
                        assertThat(before.getPatternId()).isEqualTo(a.getPatternId());
                        if (a.getPatternId().equals(PatternSettings.Kind.ENGINE_OVERHEATING.ruleId())) {
                            assertThat(a.getMatchedEventIds()).as("the run, one reading longer")
                                    .hasSize(before.getMatchedEventIds().size() + 1)
                                    .startsWith(before.getMatchedEventIds().toArray(String[]::new));
                        } else {
                            assertThat(a.getAttributes()).containsEntry("outcome", "delivered-late");
                            assertThat(before.getAttributes()).containsEntry("outcome", "never-delivered");
                        }
                        assertThat(superseded.add(before.getAlertId())).as("superseded once").isTrue();
                    });

            StringBuilder summary = new StringBuilder();
            for (SubjectPattern<?> pattern : List.of(new CardTestingPattern(), new ImpossibleTravelPattern(),
                    new AccountTakeoverPattern(), new ParcelSlaPattern(), new OverheatingPattern(),
                    new MaintenanceDuePattern())) {
                Map<String, String> expected = expected(pattern, generation, lateFacts);
                List<String> actual = alerts.stream()
                        .filter(a -> a.getPatternId().equals(pattern.kind().ruleId()))
                        .map(Alert::getAlertId).filter(id -> !superseded.contains(id)).toList();
                summary.append(String.format(Locale.ROOT, " %s %d;", pattern.kind().ruleId(), actual.size()));
                assertThat(actual).as(pattern.kind().ruleId() + " alerts").doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(expected.keySet());
                assertThat(alerts).filteredOn(a -> a.getPatternId().equals(pattern.kind().ruleId()))
                        .allSatisfy(a -> assertThat(a.getPatternVersion()).isEqualTo(1));
            }
            System.out.printf(Locale.ROOT, "CEP engine differential seed %d, %d events, %d late facts, %.1f s:%s%n",
                    seed, events, lateFacts.size(), (System.nanoTime() - started) / 1e9, summary);
        } finally {
            run.forget();
        }
    }

    /** Alert id -> identity of every finding of the pure function over each subject's on-time facts. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<String, String> expected(SubjectPattern<?> pattern, Generation generation, Set<String> lateFacts) {
        PatternSettings defaults = PatternSettings.defaults();
        SubjectPattern raw = pattern;
        Set<EventKind> input = switch (pattern.kind()) {
            case CARD_TESTING, IMPOSSIBLE_TRAVEL -> Set.of(EventKind.TRANSACTION);
            case PARCEL_SLA -> Set.of(EventKind.PARCEL_SCAN);
            case MAINTENANCE_DUE, ENGINE_OVERHEATING -> Set.of(EventKind.VEHICLE_TELEMETRY);
            case ACCOUNT_TAKEOVER -> Set.of(EventKind.CUSTOMER, EventKind.ORDER);
        };
        Map<String, List<CepFact>> bySubject = new TreeMap<>();
        for (GeneratedEvent e : generation.events()) {
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
            if (fact.isEmpty() || !pattern.keeps(fact.get(), defaults)
                    || lateFacts.contains(fact.get().getKind() + "|" + fact.get().getEventId())) {
                continue;
            }
            bySubject.computeIfAbsent(raw.subject(event), s -> new ArrayList<>()).add(fact.get());
        }
        Map<String, String> found = new HashMap<>();
        bySubject.forEach((subject, facts) -> {
            facts.sort(Comparator.comparingLong(CepFact::getOccurredAtMs).thenComparing(CepFact::getEventId));
            for (Finding f : pattern.find(subject, facts, defaults, Instant.MAX)) {
                found.put(Alerts.alertIdOf(f), f.identity());
            }
        });
        return found;
    }
}
