package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.CepFact;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tail is an optimisation, not a change of meaning: the telemetry patterns with their short tail emit exactly the
 * alerts (same ids, same revisions, same order) as the same patterns re-reading their whole history at every
 * evaluation (the layout before the tail: every fact in the value), on a seeded stream of readings with hot runs,
 * service marks, out-of-order and late readings, repeats, quiet spells longer than the retention and threshold changes
 * on the rules input; and both end with no state and no timers.
 */
class TelemetryTailEquivalenceTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    /**
     * A watermark after every event (as in production: readings pending for at most the bound), or only every 60 or
     * 400 events, as when a job catches up on a backlog with periodic watermarks: many readings per vehicle then wait
     * for their time, some for longer than the retention after the vehicle's previous reading.
     */
    private static final int[] WATERMARK_EVERY = {1, 60, 400};

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void overheatingWithItsTailAlertsAsTheWholeHistoryDoes(long seed) throws Exception {
        assertSameAlerts(new OverheatingPattern(), seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void maintenanceDueWithItsTailAlertsAsTheWholeHistoryDoes(long seed) throws Exception {
        assertSameAlerts(new MaintenanceDuePattern(), seed);
    }

    private static void assertSameAlerts(SubjectPattern<VehicleTelemetry> pattern, long seed) throws Exception {
        List<Step> steps = steps(seed);
        try (var tail = harness(pattern); var whole = harness(new WholeHistory(pattern))) {
            for (Step step : steps) {
                step.apply(tail);
                step.apply(whole);
            }
            List<Alert> expected = whole.newAlerts();
            assertThat(expected).as("the stream makes alerts to compare").isNotEmpty();
            if (WATERMARK_EVERY[(int) (seed % WATERMARK_EVERY.length)] == 1) {
                assertThat(expected.stream().anyMatch(a -> a.getAttributes().containsKey(Alerts.SUPERSEDES)))
                        .as("and revisions (late readings are frequent when the watermark follows every event)").isTrue();
            }
            assertThat(tail.newAlerts()).containsExactlyElementsOf(expected);
            assertThat(tail.keyedStateEntries()).isZero();
            assertThat(tail.eventTimeTimers()).isZero();
        }
    }

    private static MatcherHarness<VehicleTelemetry> harness(SubjectPattern<VehicleTelemetry> pattern) throws Exception {
        return new MatcherHarness<>(pattern, AvroTypes.of(VehicleTelemetry.class), VehicleTelemetry::getVehicleId);
    }

    /** One input of the matcher: an event, a watermark or a rule. */
    record Step(VehicleTelemetry event, Instant watermark, RuleDefinition rule) {
        void apply(MatcherHarness<VehicleTelemetry> m) throws Exception {
            if (event != null) {
                m.send(event);
            } else if (watermark != null) {
                m.watermark(watermark);
            } else {
                m.rule(rule);
            }
        }
    }

    private record Timed(long deliverAt, long seq, VehicleTelemetry event) {
    }

    /**
     * Three vehicles reading every 5–40 s for about four hours of event time, each with two quiet spells of over an
     * hour; coolant is normal (85–100 °C) except in hot episodes of 2–7 rising readings 5–25 s apart (so an episode
     * spans less than the shortest window used, 3 min: see {@link OverheatingPattern} on longer runs); the odometer
     * crosses a service mark every few readings (interval 10 km, then 7 km). 10 % of readings arrive up to 2 × the
     * bound late, 3 % twice; the watermark trails the newest event time by the bound, advanced after every event or
     * only every so many ({@link #WATERMARK_EVERY}). The thresholds change on the way.
     */
    static List<Step> steps(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Timed> timed = new ArrayList<>();
        long seq = 0;
        for (int v = 0; v < 3; v++) {
            String vehicle = "truck-" + v;
            long at = T0.toEpochMilli() + rnd.nextLong(60_000);
            double coolant = 90;
            double odometer = 1_000 + rnd.nextDouble() * 10;
            int episode = 0;
            for (int i = 0; i < 400; i++) {
                if (episode > 0) {
                    at += 5_000 + rnd.nextLong(20_000);
                    coolant += 0.5 + rnd.nextDouble() * 2;
                    episode--;
                } else if (rnd.nextDouble() < 0.15) {
                    at += 5_000 + rnd.nextLong(20_000);
                    coolant = 104.5 + rnd.nextDouble() * 3;
                    episode = 1 + rnd.nextInt(6);
                } else {
                    at += 5_000 + rnd.nextLong(35_000);
                    coolant = 85 + rnd.nextDouble() * 15;
                }
                if (i == 150 || i == 300) {
                    at += 3_700_000 + rnd.nextLong(600_000);
                }
                odometer += rnd.nextDouble() * 4;
                VehicleTelemetry r = reading(vehicle + "-" + i, vehicle, Math.round(coolant * 10) / 10.0,
                        Math.round(odometer * 10) / 10.0, Instant.ofEpochMilli(at));
                long delay = rnd.nextDouble() < 0.1 ? rnd.nextLong(2 * BOUND.toMillis()) : 0;
                timed.add(new Timed(at + delay, seq++, r));
                if (rnd.nextDouble() < 0.03) {
                    timed.add(new Timed(at + delay + rnd.nextLong(BOUND.toMillis() * 3), seq++, r));
                }
            }
        }
        timed.sort(Comparator.comparingLong(Timed::deliverAt).thenComparingLong(Timed::seq));

        List<Step> steps = new ArrayList<>();
        steps.add(new Step(null, null, rule(PatternSettings.Kind.MAINTENANCE_DUE, 2, Map.of("intervalKm", "10.0"))));
        long newest = Long.MIN_VALUE;
        long watermark = Long.MIN_VALUE;
        int watermarkEvery = WATERMARK_EVERY[(int) (seed % WATERMARK_EVERY.length)];
        for (int i = 0; i < timed.size(); i++) {
            if (i == timed.size() / 3) {
                steps.add(new Step(null, null, rule(PatternSettings.Kind.ENGINE_OVERHEATING, 2,
                        Map.of("thresholdC", "101.0", "minReadings", "3", "window", "PT5M"))));
                steps.add(new Step(null, null, rule(PatternSettings.Kind.MAINTENANCE_DUE, 3, Map.of("intervalKm", "7.0"))));
            }
            if (i == 2 * timed.size() / 3) {
                steps.add(new Step(null, null, rule(PatternSettings.Kind.ENGINE_OVERHEATING, 3,
                        Map.of("thresholdC", "104.0", "minReadings", "4", "window", "PT3M"))));
            }
            VehicleTelemetry event = timed.get(i).event();
            steps.add(new Step(event, null, null));
            newest = Math.max(newest, event.getEnvelope().getOccurredAt().toEpochMilli());
            if (newest - BOUND.toMillis() > watermark && (i % watermarkEvery == 0 || i == timed.size() - 1)) {
                watermark = newest - BOUND.toMillis();
                steps.add(new Step(null, Instant.ofEpochMilli(watermark), null));
            }
        }
        steps.add(new Step(null, Instant.ofEpochMilli(Long.MAX_VALUE), null));
        return steps;
    }

    private static RuleDefinition rule(PatternSettings.Kind kind, int version, Map<String, String> parameters) {
        RuleDefinition d = PatternSettings.defaultDefinitions().stream()
                .filter(r -> r.getRuleId().equals(kind.ruleId())).findFirst().orElseThrow();
        RuleDefinition changed = RuleDefinition.newBuilder(d).build();
        changed.setParameters(new HashMap<>(parameters));
        changed.setVersion(version);
        return changed;
    }

    /** The pattern with the default tail, every fact: the matcher re-reads the whole history at each evaluation. */
    private record WholeHistory(SubjectPattern<VehicleTelemetry> pattern) implements SubjectPattern<VehicleTelemetry> {
        @Override
        public PatternSettings.Kind kind() {
            return pattern.kind();
        }

        @Override
        public Envelope envelope(VehicleTelemetry event) {
            return pattern.envelope(event);
        }

        @Override
        public String subject(VehicleTelemetry event) {
            return pattern.subject(event);
        }

        @Override
        public Optional<CepFact> factOf(VehicleTelemetry event) {
            return pattern.factOf(event);
        }

        @Override
        public List<Finding> find(String subject, List<CepFact> facts, PatternSettings settings, Instant timeReached) {
            return pattern.find(subject, facts, settings, timeReached);
        }

        @Override
        public Duration retention(PatternSettings settings) {
            return pattern.retention(settings);
        }

        @Override
        public Duration guard(PatternSettings settings) {
            return pattern.guard(settings);
        }

        @Override
        public int version(PatternSettings settings) {
            return pattern.version(settings);
        }

        @Override
        public boolean enabled(PatternSettings settings) {
            return pattern.enabled(settings);
        }
    }
}
