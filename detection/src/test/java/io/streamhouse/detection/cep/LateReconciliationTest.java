package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.VehicleTelemetry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.detection.cep.CepEvents.scan;
import static io.streamhouse.domain.testdata.Times.ONE_HOUR;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Late events reconciled (issue #21, item 3): given a case's events, when they reach the matcher behind the watermark in
 * another order, expect the alerts in effect at the end — every alert not superseded, a withdrawn one dropped with its
 * withdrawal — to be exactly those of in-order processing, and no alert id written twice. The in-order run is the
 * oracle, in the same harness.
 */
class LateReconciliationTest {
    private static final String TRUCK = "truck-7";
    private static final Duration SECOND = Duration.ofSeconds(1);

    private static Instant minute(int m) {
        return T0.plus(ONE_MINUTE.multipliedBy(m));
    }

    private static MatcherHarness<VehicleTelemetry> telemetry() throws Exception {
        return new MatcherHarness<>(new OverheatingPattern(), AvroTypes.of(VehicleTelemetry.class), VehicleTelemetry::getVehicleId);
    }

    private static MatcherHarness<ParcelScanned> parcels() throws Exception {
        return new MatcherHarness<>(new ParcelSlaPattern(), AvroTypes.of(ParcelScanned.class), ParcelScanned::getParcelId);
    }

    /**
     * The alerts in effect: each alert not superseded by a later one, without the withdrawn ones; keyed by alert id,
     * the value without {@code supersedes} (which names an intermediate alert that depends on the arrival order).
     * Fails if an alert id is written twice.
     */
    static Map<String, Alert> effective(List<Alert> alerts) {
        Set<String> ids = new HashSet<>();
        Set<String> superseded = new HashSet<>();
        for (Alert a : alerts) {
            assertThat(ids.add(a.getAlertId())).as("alert id %s written twice in %s", a.getAlertId(), alerts).isTrue();
            String before = a.getAttributes().get(Alerts.SUPERSEDES);
            if (before != null) {
                assertThat(superseded.add(before)).as("%s superseded twice: the chain is not a line", before).isTrue();
            }
        }
        Map<String, Alert> inEffect = new TreeMap<>();
        for (Alert a : alerts) {
            if (!superseded.contains(a.getAlertId()) && a.getStatus() != AlertStatus.WITHDRAWN) {
                Alert copy = Alert.newBuilder(a).build();
                copy.getAttributes().remove(Alerts.SUPERSEDES);
                inEffect.put(a.getAlertId(), copy);
            }
        }
        return inEffect;
    }

    private static <E> List<Alert> run(MatcherHarness<E> m, Consumer<MatcherHarness<E>> script) throws Exception {
        try (m) {
            script.accept(m);
            return m.newAlerts();
        }
    }

    /** Sends each event, wrapping the harness's checked exceptions for use in a script. */
    private static <E> void send(MatcherHarness<E> m, List<E> events) {
        try {
            for (E e : events) {
                m.send(e);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static <E> void watermark(MatcherHarness<E> m, Instant at) {
        try {
            m.watermark(at);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** In order: each event, then the watermark at its time. */
    private static <E> List<Alert> inOrder(MatcherHarness<E> m, List<E> events, List<Instant> times, Instant end)
            throws Exception {
        return run(m, h -> {
            for (int i = 0; i < events.size(); i++) {
                send(h, List.of(events.get(i)));
                watermark(h, times.get(i));
            }
            watermark(h, end);
        });
    }

    /** Readings of {@link #TRUCK} one a minute from minute 1 with these coolant temperatures, ids {@code <prefix>1…}. */
    private static List<VehicleTelemetry> oneAMinute(String prefix, double... coolant) {
        List<VehicleTelemetry> readings = new ArrayList<>();
        for (int i = 0; i < coolant.length; i++) {
            readings.add(reading(prefix + (i + 1), TRUCK, coolant[i], 1_000 + i, minute(i + 1)));
        }
        return readings;
    }

    /** The in-order oracle for {@link #oneAMinute} readings: each, then the watermark at its minute; then minute 60. */
    private static List<Alert> inOrderOneAMinute(List<VehicleTelemetry> readings) throws Exception {
        List<Instant> times = new ArrayList<>();
        for (int i = 0; i < readings.size(); i++) {
            times.add(minute(i + 1));
        }
        return inOrder(telemetry(), readings, times, minute(60));
    }

    /** Late: the watermark first passes every event, then the events arrive in {@code order}. */
    private static <E> List<Alert> allLate(MatcherHarness<E> m, List<E> events, int[] order, Instant watermark, Instant end)
            throws Exception {
        return run(m, h -> {
            watermark(h, watermark);
            for (int i : order) {
                send(h, List.of(events.get(i)));
            }
            watermark(h, end);
        });
    }

    @Test
    void coolant106_108_107_109ArrivingAs109_106_108_107EndsWithNoOverheatingAlert() throws Exception {
        List<VehicleTelemetry> readings = List.of(
                reading("c1", TRUCK, 106, 1_000, minute(1)), reading("c2", TRUCK, 108, 1_001, minute(2)),
                reading("c3", TRUCK, 107, 1_002, minute(3)), reading("c4", TRUCK, 109, 1_003, minute(4)));
        List<Alert> ordered = inOrder(telemetry(), readings, List.of(minute(1), minute(2), minute(3), minute(4)), minute(60));
        assertThat(ordered).as("in order: 106-108 and 107-109, no run of three").isEmpty();

        List<Alert> late = allLate(telemetry(), readings, new int[]{3, 0, 1, 2}, minute(5), minute(60));

        assertThat(late).as("106-108-109 looked rising until 107 arrived").hasSizeGreaterThanOrEqualTo(2);
        assertThat(late.get(late.size() - 1).getStatus()).isEqualTo(AlertStatus.WITHDRAWN);
        assertThat(late.get(late.size() - 1).getAttributes()).containsEntry(Alerts.SUPERSEDES, late.get(0).getAlertId());
        assertThat(effective(late)).isEqualTo(effective(ordered)).isEmpty();
    }

    @Test
    void aRunWhoseFirstReadingsArriveLastIsOneAlertSupersedingTheEarlierOnes() throws Exception {
        List<VehicleTelemetry> readings = List.of(
                reading("r1", TRUCK, 105.1, 1_000, minute(1)), reading("r2", TRUCK, 105.2, 1_001, minute(2)),
                reading("r3", TRUCK, 105.3, 1_002, minute(3)), reading("r4", TRUCK, 105.4, 1_003, minute(4)));
        List<Alert> ordered = inOrder(telemetry(), readings, List.of(minute(1), minute(2), minute(3), minute(4)), minute(60));

        List<Alert> late = allLate(telemetry(), readings, new int[]{1, 2, 3, 0}, minute(5), minute(60));

        assertThat(late).hasSize(2);
        assertThat(late.get(1).getAttributes()).containsEntry(Alerts.SUPERSEDES, late.get(0).getAlertId());
        assertThat(effective(late)).isEqualTo(effective(ordered)).hasSize(1)
                .allSatisfy((id, a) -> assertThat(a.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r3", "evt-r4"));
    }

    @Test
    void theRestartBrokerCaseTheFirstReadingLateAfterTheOtherThreeWereMatchedOnTime() throws Exception {
        List<VehicleTelemetry> readings = oneAMinute("b", 106, 107, 108, 109, 90);
        List<Alert> ordered = inOrderOneAMinute(readings);

        List<Alert> live = run(telemetry(), h -> {
            watermark(h, minute(1));
            send(h, readings.subList(1, 5));
            watermark(h, minute(5));
            send(h, List.of(readings.get(0))); // behind the watermark, after 2-3-4 were alerted
            watermark(h, minute(60));
        });

        assertThat(live).as("2-3-4, then 1-2-3-4 superseding it").hasSize(2);
        assertThat(live.get(1).getAttributes()).containsEntry(Alerts.SUPERSEDES, live.get(0).getAlertId());
        assertThat(effective(live)).isEqualTo(effective(ordered)).hasSize(1);
    }

    @Test
    void aDeliveryOneSecondAfterTheDeadlineArrivingLateEndsDeliveredLateOnce() throws Exception {
        Instant promisedBy = T0.plus(ONE_HOUR);
        Instant deadline = promisedBy.plus(Duration.ofHours(2));
        List<ParcelScanned> scans = List.of(
                scan("ofd", "P-1", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0),
                scan("del", "P-1", ParcelStatus.DELIVERED, promisedBy, deadline.plus(SECOND)));
        List<Alert> ordered = inOrder(parcels(), scans, List.of(T0, deadline.plus(SECOND)), deadline.plus(ONE_HOUR));
        assertThat(effective(ordered).values()).singleElement().satisfies(a ->
                assertThat(a.getAttributes()).containsEntry("outcome", "delivered-late"));

        List<Alert> late = allLate(parcels(), scans, new int[]{0, 1}, deadline.plus(Duration.ofMinutes(10)),
                deadline.plus(ONE_HOUR));

        assertThat(late).extracting(a -> a.getAttributes().get("outcome"))
                .as("not never-delivered again when the deadline's timer fires behind the horizon")
                .containsExactly("never-delivered", "delivered-late");
        assertThat(effective(late)).isEqualTo(effective(ordered));
    }

    @Test
    void aParcelDeliveredInTimeWhoseOutForDeliveryScanArrivesLateFirstEndsWithNoAlert() throws Exception {
        Instant promisedBy = T0.plus(ONE_HOUR);
        Instant deadline = promisedBy.plus(Duration.ofHours(2));
        List<ParcelScanned> scans = List.of(
                scan("ofd", "P-2", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0),
                scan("del", "P-2", ParcelStatus.DELIVERED, promisedBy, deadline.minus(SECOND)));
        List<Alert> ordered = inOrder(parcels(), scans, List.of(T0, deadline.minus(SECOND)), deadline.plus(ONE_HOUR));
        assertThat(ordered).isEmpty();

        List<Alert> late = allLate(parcels(), scans, new int[]{0, 1}, deadline.plus(Duration.ofMinutes(10)),
                deadline.plus(ONE_HOUR));

        assertThat(late).as("never-delivered while the delivery was not there yet, then withdrawn").hasSize(2);
        assertThat(late.get(1).getStatus()).isEqualTo(AlertStatus.WITHDRAWN);
        assertThat(effective(late)).isEqualTo(effective(ordered)).isEmpty();
    }

    /**
     * The kill-cep drill's case: restored from a checkpoint whose state was evaluated to minute 5, the matcher's
     * watermark starts again at its minimum, and readings from before minute 5 that were after the checkpoint's barrier
     * arrive before the first watermark does. They are behind what the state already evaluated, so they must be
     * reconciled as late readings are, not left waiting for a time the state has passed.
     */
    @Test
    void readingsBehindTheRestoredStatesHorizonArrivingBeforeTheFirstWatermarkAreStillMatched() throws Exception {
        List<VehicleTelemetry> readings = oneAMinute("k", 100, 106, 107, 108, 90);
        List<Alert> ordered = inOrderOneAMinute(readings);
        assertThat(effective(ordered)).hasSize(1);

        MatcherHarness<VehicleTelemetry> before = telemetry();
        send(before, List.of(readings.get(0), readings.get(4)));
        watermark(before, minute(5));
        List<Alert> live = new ArrayList<>(before.newAlerts());
        List<Alert> afterRestore = run(before.restartFromSnapshot(), h -> {
            send(h, readings.subList(1, 4)); // no watermark yet: the restored operator's is Long.MIN_VALUE
            watermark(h, minute(60));
        });
        live.addAll(afterRestore);

        assertThat(effective(live)).isEqualTo(effective(ordered));
    }

    /** Every order of four readings, all late: the alerts in effect are those of in-order processing. */
    @Test
    void everyArrivalOrderOfFourLateReadingsEndsAsInOrder() throws Exception {
        double[][] cases = {{106, 108, 107, 109}, {105.1, 105.2, 105.3, 105.4}, {104, 106, 107, 108}, {106, 107, 108, 100}};
        for (double[] coolant : cases) {
            List<VehicleTelemetry> readings = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                readings.add(reading("p" + i, TRUCK, coolant[i], 1_000 + i, minute(i + 1)));
            }
            Map<String, Alert> expected = effective(inOrder(telemetry(), readings,
                    List.of(minute(1), minute(2), minute(3), minute(4)), minute(60)));
            for (int[] order : permutations(4)) {
                assertThat(effective(allLate(telemetry(), readings, order, minute(5), minute(60))))
                        .as("coolant %s in order %s", java.util.Arrays.toString(coolant), java.util.Arrays.toString(order))
                        .isEqualTo(expected);
            }
        }
    }

    private static List<int[]> permutations(int n) {
        List<int[]> all = new ArrayList<>();
        permute(new int[n], new boolean[n], 0, all);
        return all;
    }

    private static void permute(int[] current, boolean[] used, int at, List<int[]> all) {
        if (at == current.length) {
            all.add(current.clone());
            return;
        }
        for (int i = 0; i < current.length; i++) {
            if (!used[i]) {
                used[i] = true;
                current[at] = i;
                permute(current, used, at + 1, all);
                used[i] = false;
            }
        }
    }
}
