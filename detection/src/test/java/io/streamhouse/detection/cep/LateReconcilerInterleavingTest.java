package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconciliation under arrival orders a live job can give, on the seeded generator's telemetry. For each planted
 * overheating run with a reading behind the topic's watermark (the reconciliation's work): the vehicle's readings
 * around it in delivery order, with the topic's watermark (its highest event time less the bound) emitted every N
 * events of the topic, N log-uniform from 1 to 20,000 (per-event watermarks, up to periodic ones over a burst, which
 * jump many minutes of event time at once). The CEP operator's output is modelled: when its watermark passes a reading, the pure
 * function's findings over the readings it has in order, each new or grown one an alert (a grown run's superseding the
 * one before); a reading behind its watermark is its late data. The two inputs are interleaved at random, the CEP
 * operator's output at most a few elements ahead of the facts it came from (the two reach this step over different
 * channels, flushed independently). Whatever the order, the alerts in effect at the end must be the pure function's
 * over every reading, and no alert id is written twice.
 */
class LateReconcilerInterleavingTest {
    private static final PatternSettings V1 = PatternSettings.defaults();
    private static final long BOUND_MS = CepJobConfig.defaults().maxOutOfOrderness().toMillis();
    private static final int ORDERS_PER_RUN = 80;
    private static final int MAX_LEAD = 8;
    private static final int MAX_EVENTS_PER_WATERMARK = 20_000;
    private final OverheatingPattern overheating = new OverheatingPattern();

    @Test
    void theAlertsInEffectAreThePureFunctionsWhateverTheArrivalOrder() throws Exception {
        Generation generation = Generator.generate(GeneratorConfig.defaults(42L, 100_000));
        Telemetry telemetry = Telemetry.of(generation);
        Random random = new Random(7);
        List<String> wrong = new ArrayList<>();
        List<String> twice = new ArrayList<>();
        int runs = 0;
        for (Anomaly planted : generation.anomalies()) {
            if (planted.type() != AlertType.ENGINE_OVERHEATING) {
                continue;
            }
            Delivery delivery = delivery(telemetry, planted, Duration.ofMinutes(40), Duration.ofMinutes(30));
            if (!delivery.runHasALateReading()) {
                continue;
            }
            runs++;
            List<List<String>> expected = sorted(overheating.find(planted.subjectId(), delivery.inEventTime(), V1, null)
                    .stream().map(Finding::eventIds).toList());
            for (int k = 0; k < ORDERS_PER_RUN; k++) {
                // Log-uniform: a watermark after every event (per-event) to one every 20,000 events of the topic.
                int every = (int) Math.exp(random.nextDouble() * Math.log(MAX_EVENTS_PER_WATERMARK));
                List<Object> facts = delivery.arrivals(every);
                List<Alert> written = reconcile(facts, cep(facts), random);
                List<List<String>> got = sorted(AlertsInEffect.of(written).values().stream()
                        .map(a -> List.copyOf(a.getMatchedEventIds())).toList());
                if (!got.equals(expected)) {
                    wrong.add(planted.subjectId() + " at " + planted.windowStart() + ", order " + k + ": " + got);
                }
                Map<String, Long> times = new HashMap<>();
                written.forEach(a -> times.merge(a.getAlertId(), 1L, Long::sum));
                String order = planted.subjectId() + " at " + planted.windowStart() + ", order " + k + ": ";
                times.forEach((id, n) -> {
                    if (n > 1) {
                        twice.add(order + id + " written " + n + " times");
                    }
                });
            }
        }
        assertThat(runs).as("planted runs with a reading behind the watermark").isGreaterThanOrEqualTo(5);
        assertThat(wrong).as("orders whose alerts in effect are not the pure function's").isEmpty();
        assertThat(twice).as("alert ids written more than once (an id is written once)").isEmpty();
    }

    /**
     * One vehicle's readings around a planted run with their positions on the topic, the topic's watermark after each
     * of its events, the readings in event time, and whether one of the run's readings came behind the watermark.
     */
    private record Delivery(List<StampedFact> readings, List<Integer> positions, long[] watermarkAfter,
                            List<CepFact> inEventTime, boolean runHasALateReading) {

        /**
         * The readings as the job's operators get them when the source emits its watermark every {@code every} events
         * of the topic (periodically, over traffic of that rate), and at the end the final one.
         */
        List<Object> arrivals(int every) {
            List<Object> arrivals = new ArrayList<>();
            long emitted = Long.MIN_VALUE;
            int next = 0;
            for (int g = positions.get(0); g <= positions.get(positions.size() - 1); g++) {
                if (g == positions.get(next)) {
                    arrivals.add(readings.get(next++));
                }
                if (g % every == 0 && watermarkAfter[g] > emitted) {
                    emitted = watermarkAfter[g];
                    arrivals.add(new Watermark(emitted));
                }
            }
            arrivals.add(Watermark.MAX_WATERMARK);
            return arrivals;
        }
    }

    /** The telemetry topic in delivery order and its watermark after each event (highest event time less the bound). */
    private record Telemetry(List<GeneratedEvent> events, long[] watermarkAfter) {
        static Telemetry of(Generation generation) {
            List<GeneratedEvent> events = generation.events().stream()
                    .filter(e -> e.kind() == EventKind.VEHICLE_TELEMETRY).toList();
            long[] watermarkAfter = new long[events.size()];
            long highest = Long.MIN_VALUE;
            for (int g = 0; g < events.size(); g++) {
                highest = Math.max(highest, events.get(g).occurredAt().toEpochMilli());
                watermarkAfter[g] = highest - BOUND_MS - 1;
            }
            return new Telemetry(events, watermarkAfter);
        }
    }

    private Delivery delivery(Telemetry telemetry, Anomaly planted, Duration before, Duration after) {
        String vehicle = planted.subjectId();
        Instant from = planted.windowStart().minus(before);
        Instant to = planted.windowEnd().plus(after);
        List<StampedFact> readings = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        boolean late = false;
        for (int g = 1; g < telemetry.events().size(); g++) {
            GeneratedEvent e = telemetry.events().get(g);
            if (e.key().equals(vehicle) && !e.occurredAt().isBefore(from) && e.occurredAt().isBefore(to)) {
                readings.add(new StampedFact(vehicle, overheating.factOf((VehicleTelemetry) e.value()).orElseThrow(),
                        Thresholds.of(V1, overheating.kind())));
                positions.add(g);
                late |= planted.eventIds().contains(e.eventId())
                        && e.occurredAt().toEpochMilli() <= telemetry.watermarkAfter()[g - 1];
            }
        }
        List<CepFact> inEventTime = readings.stream().map(StampedFact::getFact)
                .sorted(Comparator.comparingLong(CepFact::getOccurredAtMs)).toList();
        return new Delivery(readings, positions, telemetry.watermarkAfter(), inEventTime, late);
    }

    /** The modelled CEP operator's output over {@code facts}, each element with the index of the input it followed. */
    private record CepOutput(List<Object> elements, List<Integer> after) {
    }

    private CepOutput cep(List<Object> facts) {
        List<Object> out = new ArrayList<>();
        List<Integer> after = new ArrayList<>();
        long watermark = Long.MIN_VALUE;
        List<StampedFact> buffered = new ArrayList<>();
        List<CepFact> inOrder = new ArrayList<>();
        Map<String, Alert> byAnchor = new HashMap<>();
        for (int i = 0; i < facts.size(); i++) {
            if (facts.get(i) instanceof StampedFact f) {
                if (f.getFact().getOccurredAtMs() <= watermark) {
                    out.add(Either.Right(f));
                } else {
                    buffered.add(f);
                }
            } else {
                watermark = ((Watermark) facts.get(i)).getTimestamp();
                buffered.sort(Comparator.comparingLong(x -> x.getFact().getOccurredAtMs()));
                while (!buffered.isEmpty() && buffered.get(0).getFact().getOccurredAtMs() <= watermark) {
                    StampedFact next = buffered.remove(0);
                    inOrder.add(next.getFact());
                    for (Finding found : overheating.find(next.getSubject(), inOrder, V1, null)) {
                        Alert before = byAnchor.get(found.anchorEventId());
                        if (before == null || !before.getMatchedEventIds().equals(found.eventIds())) {
                            Alert alert = Alerts.of(found, overheating.kind().ruleId(), overheating.version(V1),
                                    before == null ? null : before.getAlertId());
                            byAnchor.put(found.anchorEventId(), alert);
                            out.add(Either.Left(alert));
                        }
                    }
                }
                out.add(facts.get(i));
            }
            while (after.size() < out.size()) {
                after.add(i);
            }
        }
        return new CepOutput(out, after);
    }

    /** Both inputs through the reconciliation, interleaved at random; what it wrote. */
    private List<Alert> reconcile(List<Object> facts, CepOutput cep, Random random) throws Exception {
        var harness = new KeyedTwoInputStreamOperatorTestHarness<String, StampedFact, Either<Alert, StampedFact>, Alert>(
                new KeyedCoProcessOperator<>(new LateReconciler(overheating, Topics.VEHICLE_TELEMETRY.name())),
                StampedFact::getSubject, e -> e.isLeft() ? e.left().getSubject().getId() : e.right().getSubject(),
                Types.STRING);
        try {
            harness.open();
            double factsFirst = random.nextDouble();
            int lead = random.nextInt(MAX_LEAD + 1);
            int i = 0;
            int j = 0;
            while (i < facts.size() || j < cep.elements().size()) {
                boolean fact = j == cep.elements().size()
                        || (i < facts.size() && (cep.after().get(j) >= i + lead || random.nextDouble() < factsFirst));
                if (fact) {
                    Object o = facts.get(i++);
                    if (o instanceof Watermark w) {
                        harness.processWatermark1(w);
                    } else {
                        StampedFact f = (StampedFact) o;
                        harness.processElement1(new StreamRecord<>(f, f.getFact().getOccurredAtMs()));
                    }
                } else {
                    Object o = cep.elements().get(j++);
                    if (o instanceof Watermark w) {
                        harness.processWatermark2(w);
                    } else {
                        @SuppressWarnings("unchecked")
                        Either<Alert, StampedFact> e = (Either<Alert, StampedFact>) o;
                        long at = e.isLeft() ? e.left().getWindowEnd().toEpochMilli() : e.right().getFact().getOccurredAtMs();
                        harness.processElement2(new StreamRecord<>(e, at));
                    }
                }
            }
            return new ArrayList<>(harness.extractOutputValues());
        } finally {
            harness.close();
        }
    }

    private static List<List<String>> sorted(List<List<String>> runs) {
        return runs.stream().map(List::copyOf).sorted(Comparator.comparing(Object::toString)).toList();
    }
}
