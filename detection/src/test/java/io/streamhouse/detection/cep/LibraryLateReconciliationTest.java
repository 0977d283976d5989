package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.topic.Topics;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.detection.cep.CepEvents.scan;

import static io.streamhouse.domain.testdata.Times.ONE_HOUR;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The late-event cases (#21, item 3) on the CEP library path: given a case's events, when they reach the CEP
 * operator behind its watermark in another order, expect the alerts in effect at the end — every alert not superseded,
 * less the withdrawn ones — to be exactly those of in-order processing, every chain of revisions a line and no alert id
 * written twice ({@link AlertsInEffect#of}). Which intermediate alerts a reader sees depends on when the
 * reconciliation's watermark passes the late facts (both its inputs must have passed it), so only the end is asserted.
 * The in-order run is the oracle, on the same cluster.
 */
class LibraryLateReconciliationTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(1).build());

    private static final PatternSettings V1 = PatternSettings.defaults();
    private static final String TRUCK = "truck-7";
    private static final Duration SECOND = Duration.ofSeconds(1);

    private static Instant minute(int m) {
        return T0.plus(ONE_MINUTE.multipliedBy(m));
    }

    private static StampedFact fact(SubjectPattern<Object> pattern, Object event) {
        return new StampedFact(pattern.subject(event), pattern.factOf(event).orElseThrow(), Thresholds.of(V1, pattern.kind()));
    }

    @SuppressWarnings("unchecked")
    private static List<StampedFact> facts(SubjectPattern<?> pattern, List<?> events) {
        return events.stream().map(e -> fact((SubjectPattern<Object>) pattern, e)).toList();
    }

    /** Runs the pattern on the library path over the facts as they arrive. */
    private static List<Alert> run(SubjectPattern<?> pattern, List<StampedFact> arrival,
                                   java.util.function.Function<DataStream<StampedFact>, DataStream<StampedFact>> watermarks)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        DataStream<Alert> alerts = CepJob.onLibrary(
                watermarks.apply(env.fromData(arrival, new AvroTypeInfo<>(StampedFact.class))), pattern,
                Topics.VEHICLE_TELEMETRY, null, new ArrayList<>());
        List<Alert> out = new ArrayList<>();
        try (CloseableIterator<Alert> it = alerts.executeAndCollect("late-case")) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /** In event-time order, each fact on time. */
    private static List<Alert> inOrder(SubjectPattern<?> pattern, List<StampedFact> facts) throws Exception {
        List<StampedFact> sorted = facts.stream()
                .sorted(Comparator.comparingLong((StampedFact f) -> f.getFact().getOccurredAtMs())).toList();
        return run(pattern, sorted, BehindTheWatermark::perFact);
    }

    /** The watermark passes {@code watermark} first; then the facts arrive in {@code order}, every one late. */
    private static List<Alert> allLate(SubjectPattern<?> pattern, List<StampedFact> facts, int[] order, Instant watermark)
            throws Exception {
        List<StampedFact> arrival = new ArrayList<>();
        for (int i : order) {
            arrival.add(facts.get(i));
        }
        return run(pattern, arrival, s -> BehindTheWatermark.everyFact(s, watermark.toEpochMilli()));
    }

    @Test
    void coolant106_108_107_109ArrivingAs109_106_108_107EndsWithNoOverheatingAlert() throws Exception {
        OverheatingPattern oh = new OverheatingPattern();
        List<StampedFact> readings = facts(oh, List.of(
                reading("c1", TRUCK, 106, 1_000, minute(1)), reading("c2", TRUCK, 108, 1_001, minute(2)),
                reading("c3", TRUCK, 107, 1_002, minute(3)), reading("c4", TRUCK, 109, 1_003, minute(4))));
        assertThat(inOrder(oh, readings)).as("in order: 106-108 and 107-109, no run of three").isEmpty();

        List<Alert> late = allLate(oh, readings, new int[]{3, 0, 1, 2}, minute(5));

        // 106-108-109 looks rising until 107 arrives: if the reconciliation saw it so, it withdrew that alert.
        assertThat(AlertsInEffect.of(late)).isEmpty();
    }

    @Test
    void aRunWhoseFirstReadingArrivesLastIsOneAlertSupersedingTheEarlierOne() throws Exception {
        OverheatingPattern oh = new OverheatingPattern();
        List<StampedFact> readings = facts(oh, List.of(
                reading("r1", TRUCK, 105.1, 1_000, minute(1)), reading("r2", TRUCK, 105.2, 1_001, minute(2)),
                reading("r3", TRUCK, 105.3, 1_002, minute(3)), reading("r4", TRUCK, 105.4, 1_003, minute(4))));
        List<Alert> ordered = inOrder(oh, readings);

        List<Alert> late = allLate(oh, readings, new int[]{1, 2, 3, 0}, minute(5));

        assertThat(AlertsInEffect.of(late)).isEqualTo(AlertsInEffect.of(ordered)).hasSize(1).allSatisfy((id, a) ->
                assertThat(a.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r3", "evt-r4"));
    }

    @Test
    void aReadingLateAfterTheCepOperatorAlertedTheRestGrowsThatAlert() throws Exception {
        OverheatingPattern oh = new OverheatingPattern();
        List<StampedFact> readings = facts(oh, List.of(
                reading("b1", TRUCK, 106, 1_000, minute(1)), reading("b2", TRUCK, 107, 1_001, minute(2)),
                reading("b3", TRUCK, 108, 1_002, minute(3)), reading("b4", TRUCK, 109, 1_003, minute(4)),
                reading("b5", TRUCK, 90, 1_004, minute(5))));
        List<Alert> ordered = inOrder(oh, readings);

        // 2, 3, 4, 5 on time (the CEP operator alerts 2-3-4 and grows it to nothing more: 5 is cool), then 1 late.
        List<Alert> live = run(oh, List.of(readings.get(1), readings.get(2), readings.get(3), readings.get(4),
                readings.get(0)), BehindTheWatermark::perFact);

        // The CEP operator's 2-3-4 is superseded by 1-2-3-4, or held back if the late reading came first.
        assertThat(AlertsInEffect.of(live)).isEqualTo(AlertsInEffect.of(ordered)).hasSize(1).allSatisfy((id, a) ->
                assertThat(a.getMatchedEventIds()).containsExactly("evt-b1", "evt-b2", "evt-b3", "evt-b4"));
    }

    private static final Instant PROMISED_BY = T0.plus(ONE_HOUR);
    /** The parcels' deadline: the promise plus the default grace (2 h). */
    private static final Instant DEADLINE = PROMISED_BY.plus(Duration.ofHours(2));

    /** A parcel out for delivery at T0, promised in an hour, then delivered at {@code deliveredAt}. */
    private static List<StampedFact> outThenDelivered(ParcelSlaPattern sla, String parcel, Instant deliveredAt) {
        return facts(sla, List.of(scan("ofd", parcel, ParcelStatus.OUT_FOR_DELIVERY, PROMISED_BY, T0),
                scan("del", parcel, ParcelStatus.DELIVERED, PROMISED_BY, deliveredAt)));
    }

    @Test
    void aDeliveryOneSecondAfterTheDeadlineArrivingLateEndsDeliveredLateOnce() throws Exception {
        ParcelSlaPattern sla = new ParcelSlaPattern();
        List<StampedFact> scans = outThenDelivered(sla, "P-1", DEADLINE.plus(SECOND));
        List<Alert> ordered = inOrder(sla, scans);
        assertThat(AlertsInEffect.of(ordered).values()).singleElement()
                .satisfies(a -> assertThat(a.getAttributes()).containsEntry("outcome", "delivered-late"));

        List<Alert> late = allLate(sla, scans, new int[]{0, 1}, DEADLINE.plus(Duration.ofMinutes(10)));

        assertThat(late).extracting(a -> a.getAttributes().get("outcome")).as("delivered late, and last")
                .endsWith("delivered-late");
        assertThat(AlertsInEffect.of(late)).isEqualTo(AlertsInEffect.of(ordered));
    }

    @Test
    void aParcelDeliveredInTimeWhoseOutForDeliveryScanArrivesLateFirstEndsWithNoAlert() throws Exception {
        ParcelSlaPattern sla = new ParcelSlaPattern();
        List<StampedFact> scans = outThenDelivered(sla, "P-2", DEADLINE.minus(SECOND));
        assertThat(inOrder(sla, scans)).isEmpty();

        List<Alert> late = allLate(sla, scans, new int[]{0, 1}, DEADLINE.plus(Duration.ofMinutes(10)));

        // A "never delivered" seen while the delivery was not there yet (the two late scans may reach the job's
        // timers in either order) is withdrawn; nothing else is ever said about the parcel.
        List<Alert> said = late.stream().filter(a -> a.getStatus() != AlertStatus.WITHDRAWN).toList();
        assertThat(said).allSatisfy(a -> assertThat(a.getAttributes()).containsEntry("outcome", "never-delivered"));
        assertThat(late).filteredOn(a -> a.getStatus() == AlertStatus.WITHDRAWN).allSatisfy(w ->
                assertThat(said).extracting(Alert::getAlertId).contains(w.getAttributes().get("supersedes")));
        assertThat(AlertsInEffect.of(late)).isEmpty();
    }
}
