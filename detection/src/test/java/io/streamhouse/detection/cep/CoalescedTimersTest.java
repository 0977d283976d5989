package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

import static io.streamhouse.detection.cep.CepEvents.NEW_YORK;
import static io.streamhouse.detection.cep.CepEvents.DELI_NEW_YORK;
import static io.streamhouse.detection.cep.CepEvents.presentPayment;
import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.detection.cep.CepEvents.scan;
import static io.streamhouse.domain.testdata.Times.ONE_HOUR;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subject has at most one evaluation timer, at its earliest waiting fact, and when it fires every waiting fact the
 * watermark has passed is evaluated, each at its own time. That is an optimisation, not a change of meaning: given the
 * same inputs, {@link PatternMatcher} emits exactly the alerts (same ids, same revisions, and for each subject in the
 * same order) of the matcher with a timer per waiting fact ({@link PerFactTimerMatcher}, the version before); only the
 * order between subjects within one advance of the watermark differs (a subject's waiting facts are evaluated
 * together, before another subject's later timers). For every pattern, with a watermark
 * after every event or only every 60 or 400 (a backlog, many facts waiting per subject, deadlines and clean-ups among
 * them), late events and threshold changes; and it restores from that version's snapshots, whose waiting facts each
 * have their own timer.
 */
class CoalescedTimersTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final String TRUCK = "truck-7";
    private static final String CARD = "card-7";

    /** One pattern over its stream of the generator's events. */
    private record Input<E>(SubjectPattern<E> pattern, TypeInformation<E> type, KeySelector<E, String> key,
                            Function<GeneratedEvent, E> eventOf) {
        @Override
        public String toString() {
            return pattern.kind().name();
        }

        List<E> events(Generation generation) {
            List<E> events = new ArrayList<>();
            for (GeneratedEvent g : generation.events()) {
                E e = eventOf.apply(g);
                if (e != null) {
                    events.add(e);
                }
            }
            return events;
        }
    }

    private static <T> T as(Class<T> type, GeneratedEvent g) {
        return type.isInstance(g.value()) ? type.cast(g.value()) : null;
    }

    static Stream<Arguments> patternsAndWatermarks() {
        TypeInformation<Either<CustomerEvent, OrderEvent>> activity =
                new EitherTypeInfo<>(AvroTypes.of(CustomerEvent.class), AvroTypes.of(OrderEvent.class));
        List<Input<?>> inputs = List.of(
                new Input<>(new CardTestingPattern(), AvroTypes.of(TransactionAuthorizationRequested.class),
                        TransactionAuthorizationRequested::getCardToken, g -> as(TransactionAuthorizationRequested.class, g)),
                new Input<>(new ImpossibleTravelPattern(), AvroTypes.of(TransactionAuthorizationRequested.class),
                        TransactionAuthorizationRequested::getCardToken, g -> as(TransactionAuthorizationRequested.class, g)),
                new Input<>(new AccountTakeoverPattern(), activity,
                        e -> e.isLeft() ? e.left().getCustomerId() : e.right().getCustomerId(), g -> {
                            CustomerEvent c = as(CustomerEvent.class, g);
                            OrderEvent o = as(OrderEvent.class, g);
                            return c != null ? Either.Left(c) : o != null ? Either.Right(o) : null;
                        }),
                new Input<>(new ParcelSlaPattern(), AvroTypes.of(ParcelScanned.class), ParcelScanned::getParcelId,
                        g -> as(ParcelScanned.class, g)),
                new Input<>(new OverheatingPattern(), AvroTypes.of(VehicleTelemetry.class),
                        VehicleTelemetry::getVehicleId, g -> as(VehicleTelemetry.class, g)),
                new Input<>(new MaintenanceDuePattern(), AvroTypes.of(VehicleTelemetry.class),
                        VehicleTelemetry::getVehicleId, g -> as(VehicleTelemetry.class, g)));
        return inputs.stream().flatMap(i -> Stream.of(1, 60, 400).map(every -> Arguments.of(i, every)));
    }

    /**
     * The generator's traffic (seed 7, 20,000 events, about 10 % late), each pattern's events in delivery order, the
     * watermark at the newest event time less the bound every so many events; halfway through, the pattern's rule is
     * republished (a new version: the matcher must re-read what it cut under the old one).
     */
    @ParameterizedTest(name = "{0}, a watermark every {1} events")
    @MethodSource("patternsAndWatermarks")
    <E> void sameAlertsAsWithATimerPerWaitingFact(Input<E> input, int watermarkEvery) throws Exception {
        List<E> events = input.events(Generator.generate(GeneratorConfig.defaults(7, 20_000)));
        try (var coalesced = new MatcherHarness<>(input.pattern(), input.type(), input.key());
             var perFact = MatcherHarness.perFactTimers(input.pattern(), input.type(), input.key())) {
            long newest = Long.MIN_VALUE;
            long watermark = Long.MIN_VALUE;
            int maxTimers = 0;
            int maxPerFactTimers = 0;
            for (int i = 0; i < events.size(); i++) {
                if (i == events.size() / 2) {
                    RuleDefinition again = republished(input.pattern().kind());
                    coalesced.rule(again);
                    perFact.rule(again);
                }
                E e = events.get(i);
                coalesced.send(e);
                perFact.send(e);
                newest = Math.max(newest, input.pattern().envelope(e).getOccurredAt().toEpochMilli());
                if (newest - BOUND.toMillis() > watermark && i % watermarkEvery == 0) {
                    maxTimers = Math.max(maxTimers, coalesced.eventTimeTimers());
                    maxPerFactTimers = Math.max(maxPerFactTimers, perFact.eventTimeTimers());
                    watermark = newest - BOUND.toMillis();
                    coalesced.watermark(Instant.ofEpochMilli(watermark));
                    perFact.watermark(Instant.ofEpochMilli(watermark));
                }
            }
            List<Alert> expected = perFact.newAlerts();
            assertSameAlertsPerSubject(coalesced.newAlerts(), expected);
            assertThat(maxTimers).as("timers at most").isLessThanOrEqualTo(maxPerFactTimers);

            coalesced.watermark(Instant.ofEpochMilli(Long.MAX_VALUE));
            perFact.watermark(Instant.ofEpochMilli(Long.MAX_VALUE));
            assertSameAlertsPerSubject(coalesced.newAlerts(), perFact.newAlerts());
            if (input.pattern().kind() != PatternSettings.Kind.MAINTENANCE_DUE) { // not planted by the generator
                assertThat(expected).as("the stream makes alerts to compare").isNotEmpty();
            }
            assertThat(coalesced.keyedStateEntries()).isZero();
            assertThat(coalesced.eventTimeTimers()).isZero();
        }
    }

    /** The telemetry stream of {@link TelemetryTailEquivalenceTest}: hot runs, service marks, real threshold changes. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void sameTelemetryAlertsAsWithATimerPerWaitingFact(long seed) throws Exception {
        for (SubjectPattern<VehicleTelemetry> pattern : List.of(new OverheatingPattern(), new MaintenanceDuePattern())) {
            try (var coalesced = telemetry(pattern);
                 var perFact = MatcherHarness.perFactTimers(pattern, AvroTypes.of(VehicleTelemetry.class),
                         VehicleTelemetry::getVehicleId)) {
                for (TelemetryTailEquivalenceTest.Step step : TelemetryTailEquivalenceTest.steps(seed)) {
                    step.apply(coalesced);
                    step.apply(perFact);
                }
                List<Alert> expected = perFact.newAlerts();
                assertThat(expected).isNotEmpty();
                assertSameAlertsPerSubject(coalesced.newAlerts(), expected);
                assertThat(coalesced.keyedStateEntries()).isZero();
                assertThat(coalesced.eventTimeTimers()).isZero();
            }
        }
    }

    @Test
    void manyWaitingReadingsOfAVehicleShareOneEvaluationTimer() throws Exception {
        try (var m = telemetry(new OverheatingPattern())) {
            for (int i = 0; i < 40; i++) {
                m.send(reading("r" + i, TRUCK, i < 35 ? 90 : 105 + i, 1_000 + i, T0.plusSeconds(10L * i)));
            }
            assertThat(m.eventTimeTimers()).as("one evaluation timer and the clean-up, not one per reading").isEqualTo(2);

            m.watermark(T0.plusSeconds(10L * 36));
            assertThat(m.newAlerts()).as("the run of rising readings is not long enough yet").isEmpty();
            assertThat(m.eventTimeTimers()).as("the evaluation timer moved to the next waiting reading").isEqualTo(2);

            m.watermark(T0.plusSeconds(10L * 39));
            assertThat(m.newAlerts()).as("alerted at the third rising reading, revised at the fourth, in order")
                    .hasSize(3).satisfies(alerts -> {
                        assertThat(alerts.get(0).getMatchedEventIds()).containsExactly("evt-r35", "evt-r36", "evt-r37");
                        assertThat(alerts.get(1).getMatchedEventIds()).containsExactly("evt-r35", "evt-r36", "evt-r37", "evt-r38");
                        assertThat(alerts.get(1).getAttributes()).containsEntry(Alerts.SUPERSEDES, alerts.get(0).getAlertId());
                    });
            assertThat(m.eventTimeTimers()).as("nothing waits: the clean-up alone").isEqualTo(1);

            m.watermark(T0.plus(ONE_HOUR).plus(ONE_HOUR));
            assertThat(m.keyedStateEntries()).isZero();
            assertThat(m.eventTimeTimers()).isZero();
        }
    }

    @Test
    void manyWaitingUsesOfACardShareOneEvaluationTimer() throws Exception {
        try (var m = new MatcherHarness<>(new ImpossibleTravelPattern(), AvroTypes.of(TransactionAuthorizationRequested.class),
                TransactionAuthorizationRequested::getCardToken)) {
            for (int i = 0; i < 20; i++) {
                m.send(presentPayment("p" + i, CARD, NEW_YORK, DELI_NEW_YORK, T0.plus(ONE_MINUTE.multipliedBy(i))));
            }
            assertThat(m.eventTimeTimers()).isEqualTo(2);
            m.watermark(T0.plus(ONE_MINUTE.multipliedBy(10)));
            assertThat(m.eventTimeTimers()).isEqualTo(2);
            m.watermark(T0.plus(ONE_HOUR));
            assertThat(m.eventTimeTimers()).as("the clean-up alone").isEqualTo(1);
            m.watermark(T0.plus(Duration.ofDays(3)));
            assertThat(m.newAlerts()).as("one place, no travel").isEmpty();
            assertThat(m.keyedStateEntries()).isZero();
            assertThat(m.eventTimeTimers()).isZero();
        }
    }

    /**
     * A parcel's deadline passes between two of its waiting scans: the evaluation stops at the deadline, whose breach
     * is reported with the time reached then ("never delivered"), and goes on after it ("delivered late"), as with a
     * timer per fact.
     */
    @Test
    void anEvaluationStopsAtADeadlineAmongTheWaitingFacts() throws Exception {
        Instant promised = T0.plus(ONE_HOUR);
        var pattern = new ParcelSlaPattern();
        try (var coalesced = parcels(pattern);
             var perFact = MatcherHarness.perFactTimers(pattern, AvroTypes.of(ParcelScanned.class), ParcelScanned::getParcelId)) {
            for (MatcherHarness<ParcelScanned> m : List.of(coalesced, perFact)) {
                m.send(scan("s1", "parcel-1", ParcelStatus.OUT_FOR_DELIVERY, promised, T0))
                        .send(scan("s2", "parcel-1", ParcelStatus.OUT_FOR_DELIVERY, promised, T0.plus(ONE_MINUTE)))
                        .send(scan("s3", "parcel-1", ParcelStatus.DELIVERED, promised, promised.plus(Duration.ofDays(1))))
                        .watermark(promised.plus(Duration.ofDays(2)));
            }
            List<Alert> expected = perFact.newAlerts();
            assertThat(expected).as("never delivered at the deadline, then revised: delivered late").hasSizeGreaterThan(1);
            assertThat(coalesced.newAlerts()).containsExactlyElementsOf(expected);
            assertThat(coalesced.eventTimeTimers()).isEqualTo(perFact.eventTimeTimers());
        }
    }

    /**
     * A savepoint of the version with a timer per waiting fact: its readings wait, each with its own timer. Restored,
     * they are all evaluated, in order, with readings that arrive after the restore (one before them, one after), and
     * the alerts are those the old version gives; the old timers that fire after an evaluation took their readings do
     * nothing; state and timers are cleared afterwards.
     */
    @Test
    void waitingReadingsOfASnapshotTakenWithATimerPerReadingAreStillEvaluated() throws Exception {
        for (SubjectPattern<VehicleTelemetry> pattern : List.of(new OverheatingPattern(), new MaintenanceDuePattern())) {
            var perFact = MatcherHarness.perFactTimers(pattern, AvroTypes.of(VehicleTelemetry.class),
                    VehicleTelemetry::getVehicleId);
            var upgraded = MatcherHarness.perFactTimers(pattern, AvroTypes.of(VehicleTelemetry.class),
                    VehicleTelemetry::getVehicleId);
            try {
                for (MatcherHarness<VehicleTelemetry> m : List.of(perFact, upgraded)) {
                    m.send(reading("r0", TRUCK, 90, 14_990, T0)).watermark(T0);
                    for (int i = 2; i < 8; i++) {
                        m.send(reading("r" + i, TRUCK, 103 + i, 14_995 + i, T0.plusSeconds(10L * i)));
                    }
                }
                assertThat(upgraded.eventTimeTimers()).as("the old version: a timer per waiting reading").isEqualTo(7);
                upgraded = upgraded.restartFromSnapshot();
                for (MatcherHarness<VehicleTelemetry> m : List.of(perFact, upgraded)) {
                    m.send(reading("r1", TRUCK, 104, 14_996, T0.plusSeconds(10)))
                            .send(reading("r8", TRUCK, 111, 15_003, T0.plusSeconds(80)))
                            .watermark(T0.plusSeconds(45))
                            .watermark(T0.plusSeconds(100));
                }
                List<Alert> expected = perFact.newAlerts();
                assertThat(expected).isNotEmpty();
                assertThat(upgraded.newAlerts()).containsExactlyElementsOf(expected);

                perFact.watermark(T0.plus(ONE_HOUR).plus(ONE_HOUR));
                upgraded.watermark(T0.plus(ONE_HOUR).plus(ONE_HOUR));
                assertThat(upgraded.newAlerts()).containsExactlyElementsOf(perFact.newAlerts());
                assertThat(upgraded.keyedStateEntries()).isZero();
                assertThat(upgraded.eventTimeTimers()).isZero();
            } finally {
                perFact.close();
                upgraded.close();
            }
        }
    }

    /** The same for a pattern that keeps its waiting facts in the value: the uses of a card. */
    @Test
    void waitingUsesOfASnapshotTakenWithATimerPerUseAreStillEvaluated() throws Exception {
        var pattern = new ImpossibleTravelPattern();
        var type = AvroTypes.of(TransactionAuthorizationRequested.class);
        KeySelector<TransactionAuthorizationRequested, String> card = TransactionAuthorizationRequested::getCardToken;
        var perFact = MatcherHarness.perFactTimers(pattern, type, card);
        var upgraded = MatcherHarness.perFactTimers(pattern, type, card);
        try {
            for (MatcherHarness<TransactionAuthorizationRequested> m : List.of(perFact, upgraded)) {
                m.send(presentPayment("p0", CARD, NEW_YORK, DELI_NEW_YORK, T0)).watermark(T0);
                m.send(presentPayment("p2", CARD, Hubs.ROTTERDAM_POS, Merchants.GROCER_ROTTERDAM, T0.plus(ONE_MINUTE.multipliedBy(2))))
                        .send(presentPayment("p3", CARD, NEW_YORK, DELI_NEW_YORK, T0.plus(ONE_MINUTE.multipliedBy(3))));
            }
            assertThat(upgraded.eventTimeTimers()).isEqualTo(3);
            upgraded = upgraded.restartFromSnapshot();
            for (MatcherHarness<TransactionAuthorizationRequested> m : List.of(perFact, upgraded)) {
                m.send(presentPayment("p1", CARD, NEW_YORK, DELI_NEW_YORK, T0.plus(ONE_MINUTE)))
                        .send(presentPayment("p4", CARD, Hubs.ROTTERDAM_POS, Merchants.GROCER_ROTTERDAM, T0.plus(ONE_MINUTE.multipliedBy(4))))
                        .watermark(T0.plus(ONE_MINUTE.multipliedBy(10)));
            }
            List<Alert> expected = perFact.newAlerts();
            assertThat(expected).hasSizeGreaterThanOrEqualTo(3);
            assertThat(upgraded.newAlerts()).containsExactlyElementsOf(expected);
            perFact.watermark(T0.plus(Duration.ofDays(3)));
            upgraded.watermark(T0.plus(Duration.ofDays(3)));
            assertThat(upgraded.keyedStateEntries()).isZero();
            assertThat(upgraded.eventTimeTimers()).isZero();
        } finally {
            perFact.close();
            upgraded.close();
        }
    }

    /** The same alerts, and for each subject in the same order. */
    private static void assertSameAlertsPerSubject(List<Alert> actual, List<Alert> expected) {
        assertThat(bySubject(actual)).isEqualTo(bySubject(expected));
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static Map<String, List<Alert>> bySubject(List<Alert> alerts) {
        Map<String, List<Alert>> bySubject = new TreeMap<>();
        for (Alert a : alerts) {
            bySubject.computeIfAbsent(a.getSubject().getId(), k -> new ArrayList<>()).add(a);
        }
        return bySubject;
    }

    private static MatcherHarness<VehicleTelemetry> telemetry(SubjectPattern<VehicleTelemetry> pattern) throws Exception {
        return new MatcherHarness<>(pattern, AvroTypes.of(VehicleTelemetry.class), VehicleTelemetry::getVehicleId);
    }

    private static MatcherHarness<ParcelScanned> parcels(ParcelSlaPattern pattern) throws Exception {
        return new MatcherHarness<>(pattern, AvroTypes.of(ParcelScanned.class), ParcelScanned::getParcelId);
    }

    private static RuleDefinition republished(PatternSettings.Kind kind) {
        RuleDefinition d = PatternSettings.defaultDefinitions().stream()
                .filter(r -> r.getRuleId().equals(kind.ruleId())).findFirst().orElseThrow();
        RuleDefinition again = RuleDefinition.newBuilder(d).build();
        again.setVersion(d.getVersion() + 1);
        return again;
    }
}
