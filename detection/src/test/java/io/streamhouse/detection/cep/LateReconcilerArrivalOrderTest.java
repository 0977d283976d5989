package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.topic.Topics;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconciliation driven input by input, in arrival orders a live job gives and a bounded one does not: the CEP
 * operator's watermark (over the keyed exchange of the stamped facts) runs ahead of this step's (the minimum of the
 * facts and of the CEP operator's own output), so a fact the CEP operator found late reaches this step when its
 * watermark is already minutes past the fact. Given the CEP operator's alerts for the facts it had, when its late fact
 * arrives, expect the alerts in effect to be those of in-order processing.
 */
class LateReconcilerArrivalOrderTest {
    private static final PatternSettings V1 = PatternSettings.defaults();
    private static final String TRUCK = "truck-7";
    private final OverheatingPattern overheating = new OverheatingPattern();
    private KeyedTwoInputStreamOperatorTestHarness<String, StampedFact, Either<Alert, StampedFact>, Alert> harness;

    private static Instant minute(int m) {
        return T0.plus(ONE_MINUTE.multipliedBy(m));
    }

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    /**
     * A rising run r1..r5 (the 5-min window's default), r5 late at the CEP operator: it alerted r1..r3 and grew it to
     * r1..r4. By the time r5 comes as its late data, this step's watermark is 3 min past r5 (7 min past r1, beyond the
     * window but within the retention, 10 min). The vehicle's readings before the run are what the retention drops.
     */
    @Test
    void aReadingLateAtTheCepOperatorGrowsTheRunWhenThisStepsWatermarkIsMinutesPastIt() throws Exception {
        StampedFact before = fact(reading("r0", TRUCK, 90, 1_000, minute(-12)));
        List<StampedFact> run = List.of(
                fact(reading("r1", TRUCK, 106, 1_001, minute(1))), fact(reading("r2", TRUCK, 107, 1_002, minute(2))),
                fact(reading("r3", TRUCK, 108, 1_003, minute(3))), fact(reading("r4", TRUCK, 109, 1_004, minute(4))),
                fact(reading("r5", TRUCK, 110, 1_005, minute(5))));
        open(overheating);

        onTime(before);
        for (StampedFact r : run.subList(0, 4)) {
            onTime(r);
        }
        Alert threeReadings = cepAlert(run.subList(0, 3), null);
        Alert fourReadings = cepAlert(run.subList(0, 4), threeReadings.getAlertId());
        harness.processElement2(new StreamRecord<>(Either.Left(threeReadings), minute(3).toEpochMilli()));
        harness.processElement2(new StreamRecord<>(Either.Left(fourReadings), minute(4).toEpochMilli()));
        onTime(run.get(4));
        watermarks(minute(8));
        harness.processElement2(new StreamRecord<>(Either.Right(run.get(4)), minute(5).toEpochMilli()));

        assertThat(AlertsInEffect.of(output()).values()).singleElement().satisfies(a ->
                assertThat(a.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r3", "evt-r4", "evt-r5"));
    }

    /**
     * Watermarks far apart (a burst read with periodic watermarks): r3 comes after r4, behind the watermark, and the
     * CEP operator gives its alerts of the run without r3 and, in the same jump of its watermark, the alert of the
     * vehicle's next run, a quarter of an hour later, before this step's watermark passes the first run. That later
     * alert must not hold back the re-evaluation of the first run until the retention has dropped it: the run ends as
     * r1..r5, not as the r1..r3 this step gave when r3 came.
     */
    @Test
    void anAlertOfALaterRunDoesNotHoldBackTheReevaluationOfAnEarlierOne() throws Exception {
        StampedFact r1 = fact(reading("r1", TRUCK, 106, 1_001, minute(1)));
        StampedFact r2 = fact(reading("r2", TRUCK, 107, 1_002, minute(2)));
        StampedFact r3 = fact(reading("r3", TRUCK, 108, 1_003, minute(3)));
        StampedFact r4 = fact(reading("r4", TRUCK, 109, 1_004, minute(4)));
        StampedFact r5 = fact(reading("r5", TRUCK, 110, 1_005, minute(5)));
        StampedFact cool = fact(reading("c6", TRUCK, 90, 1_006, minute(6)));
        List<StampedFact> next = List.of(fact(reading("n1", TRUCK, 106, 1_020, minute(20))),
                fact(reading("n2", TRUCK, 107, 1_021, minute(21))), fact(reading("n3", TRUCK, 108, 1_022, minute(22))),
                fact(reading("n4", TRUCK, 90, 1_023, minute(23))));
        open(overheating);

        for (StampedFact f : List.of(r1, r2, r4)) {
            harness.processElement1(new StreamRecord<>(f, f.getFact().getOccurredAtMs()));
        }
        watermarks(minute(3).plusSeconds(30));
        harness.processElement1(new StreamRecord<>(r3, minute(3).toEpochMilli()));
        harness.processElement2(new StreamRecord<>(Either.Right(r3), minute(3).toEpochMilli()));
        for (StampedFact f : concat(List.of(r5, cool), next)) {
            harness.processElement1(new StreamRecord<>(f, f.getFact().getOccurredAtMs()));
        }
        harness.processWatermark1(new Watermark(minute(25).toEpochMilli()));
        Alert withoutR3 = cepAlert(List.of(r1, r2, r4), null);
        Alert grown = cepAlert(List.of(r1, r2, r4, r5), withoutR3.getAlertId());
        Alert nextRun = cepAlert(next.subList(0, 3), null);
        for (Alert a : List.of(withoutR3, grown, nextRun)) {
            harness.processElement2(new StreamRecord<>(Either.Left(a), a.getWindowEnd().toEpochMilli()));
        }
        harness.processWatermark2(new Watermark(minute(25).toEpochMilli()));
        watermarks(minute(60));

        assertThat(AlertsInEffect.of(output()).values()).extracting(Alert::getMatchedEventIds)
                .containsExactlyInAnyOrder(List.of("evt-r1", "evt-r2", "evt-r3", "evt-r4", "evt-r5"),
                        List.of("evt-n1", "evt-n2", "evt-n3"));
    }

    /**
     * A restore: Flink checkpoints no watermark, so after one every operator's event time starts again at none. A run
     * r1..r4 alerted before the checkpoint; after the restore the job re-reads r0, the run's earliest reading, delivered
     * late. Its event time is long behind the time this step had reached, but the restored CEP operator, its watermark
     * at none, takes it as on time and reports nothing late. This step must still take it as late and grow the run.
     */
    @Test
    void aReadingBehindTheTimeReachedBeforeARestoreIsLateAfterIt() throws Exception {
        StampedFact r0 = fact(reading("r0", TRUCK, 105.5, 1_000, minute(0)));
        List<StampedFact> run = List.of(
                fact(reading("r1", TRUCK, 106, 1_001, minute(1))), fact(reading("r2", TRUCK, 107, 1_002, minute(2))),
                fact(reading("r3", TRUCK, 108, 1_003, minute(3))), fact(reading("r4", TRUCK, 109, 1_004, minute(4))));
        open(overheating);
        for (StampedFact r : run) {
            onTime(r);
        }
        Alert three = cepAlert(run.subList(0, 3), null);
        Alert four = cepAlert(run, three.getAlertId());
        harness.processElement2(new StreamRecord<>(Either.Left(three), minute(3).toEpochMilli()));
        harness.processElement2(new StreamRecord<>(Either.Left(four), minute(4).toEpochMilli()));
        watermarks(minute(6));
        List<Alert> written = output();
        OperatorSubtaskState checkpoint = harness.snapshot(1L, 1L);
        harness.close();

        open(overheating, Topics.VEHICLE_TELEMETRY.name(), checkpoint);
        harness.processElement1(new StreamRecord<>(r0, minute(0).toEpochMilli()));
        watermarks(minute(20));
        written.addAll(output());

        assertThat(AlertsInEffect.of(written).values()).singleElement().satisfies(a -> assertThat(a.getMatchedEventIds())
                .containsExactly("evt-r0", "evt-r1", "evt-r2", "evt-r3", "evt-r4"));
    }

    private static List<StampedFact> concat(List<StampedFact> a, List<StampedFact> b) {
        List<StampedFact> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * A reading written twice (a client's retry that reached another ingest instance), its copy late: the alerts in
     * effect are already those of the facts, so the copy changes nothing and nothing is written — above all no alert
     * of the chain again (an alert id is written once).
     */
    @Test
    void aLateCopyOfAReadingInAnAlertedRunWritesNothing() throws Exception {
        for (int watermarkMinute : new int[]{6, 8, 14}) {
            List<StampedFact> run = List.of(
                    fact(reading("r1", TRUCK, 106, 1_001, minute(1))), fact(reading("r2", TRUCK, 107, 1_002, minute(2))),
                    fact(reading("r3", TRUCK, 108, 1_003, minute(3))), fact(reading("r4", TRUCK, 109, 1_004, minute(4))),
                    fact(reading("r5", TRUCK, 110, 1_005, minute(5))));
            open(overheating);
            Alert three = cepAlert(run.subList(0, 3), null);
            Alert four = cepAlert(run.subList(0, 4), three.getAlertId());
            Alert five = cepAlert(run, four.getAlertId());
            for (int i = 0; i < run.size(); i++) {
                onTime(run.get(i));
                if (i >= 2) {
                    Alert a = i == 2 ? three : i == 3 ? four : five;
                    harness.processElement2(new StreamRecord<>(Either.Left(a), a.getWindowEnd().toEpochMilli()));
                }
            }
            watermarks(minute(watermarkMinute));
            int written = output().size();

            StampedFact copy = fact(reading("r3", TRUCK, 108, 1_003, minute(3)));
            harness.processElement1(new StreamRecord<>(copy, minute(3).toEpochMilli()));
            harness.processElement2(new StreamRecord<>(Either.Right(copy), minute(3).toEpochMilli()));
            watermarks(minute(watermarkMinute + 30));

            assertThat(output().subList(written, output().size())).as("watermark at minute %d", watermarkMinute).isEmpty();
            assertThat(AlertsInEffect.of(output()).values()).singleElement()
                    .satisfies(a -> assertThat(a.getAlertId()).isEqualTo(five.getAlertId()));
            harness.close();
            harness = null;
        }
    }

    /**
     * The CEP operator gives an alert this step already wrote and saw superseded (a copy of the chain's first alert
     * after its revisions): it is not written again, and the chain's newest alert stays in effect.
     */
    @Test
    void anAlertAlreadyWrittenAndSupersededIsNotWrittenAgain() throws Exception {
        List<StampedFact> run = List.of(
                fact(reading("r1", TRUCK, 106, 1_001, minute(1))), fact(reading("r2", TRUCK, 107, 1_002, minute(2))),
                fact(reading("r3", TRUCK, 108, 1_003, minute(3))), fact(reading("r4", TRUCK, 109, 1_004, minute(4))));
        open(overheating);
        Alert three = cepAlert(run.subList(0, 3), null);
        Alert four = cepAlert(run, three.getAlertId());
        run.forEach(r -> {
            try {
                harness.processElement1(new StreamRecord<>(r, r.getFact().getOccurredAtMs()));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        harness.processElement2(new StreamRecord<>(Either.Left(three), minute(3).toEpochMilli()));
        harness.processElement2(new StreamRecord<>(Either.Left(four), minute(4).toEpochMilli()));
        int written = output().size();

        harness.processElement2(new StreamRecord<>(Either.Left(three), minute(3).toEpochMilli()));
        harness.processElement2(new StreamRecord<>(Either.Left(four), minute(4).toEpochMilli()));

        assertThat(output()).hasSize(written);
        assertThat(AlertsInEffect.of(output()).values()).singleElement()
                .satisfies(a -> assertThat(a.getAlertId()).isEqualTo(four.getAlertId()));
    }

    /**
     * A parcel sent out again, then delivered after the deadline: every scan behind this step's watermark, so the
     * reconciliation alerts "never delivered" at the deadline and revises it to "delivered late". The CEP operator's
     * late copy of the second out-for-delivery scan comes after the delivery: a re-evaluation from that scan's time must
     * not go back to "never delivered" (the delivery is after the deadline's horizon, not before it), so nothing more
     * is written and every alert id of the chain is written once.
     */
    @Test
    void aLateCopyOfAnEarlierScanDoesNotTurnTheChainBack() throws Exception {
        ParcelSlaPattern sla = new ParcelSlaPattern();
        Instant promisedBy = T0.plus(java.time.Duration.ofHours(1));
        Instant deadline = promisedBy.plus(V1.parcelSla().grace());
        StampedFact first = fact(sla, CepEvents.scan("p-again-1", "parcel-sent-again",
                io.streamhouse.domain.event.ParcelStatus.OUT_FOR_DELIVERY, T0.plus(java.time.Duration.ofHours(30)), T0));
        StampedFact again = fact(sla, CepEvents.scan("p-again-2", "parcel-sent-again",
                io.streamhouse.domain.event.ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0.plusSeconds(60)));
        StampedFact delivered = fact(sla, CepEvents.scan("p-again-3", "parcel-sent-again",
                io.streamhouse.domain.event.ParcelStatus.DELIVERED, null, deadline.plusSeconds(1)));
        open(sla, Topics.PARCEL_SCANS.name());
        watermarks(T0.plus(java.time.Duration.ofHours(10)));

        for (StampedFact f : List.of(first, again, delivered)) {
            harness.processElement1(new StreamRecord<>(f, f.getFact().getOccurredAtMs()));
        }
        int written = output().size();
        harness.processElement2(new StreamRecord<>(Either.Right(again), again.getFact().getOccurredAtMs()));
        watermarks(T0.plus(java.time.Duration.ofHours(20)));

        assertThat(output().subList(written, output().size())).as("written after the late copy").isEmpty();
        assertThat(output().stream().map(Alert::getAlertId).toList()).doesNotHaveDuplicates();
        assertThat(AlertsInEffect.of(output()).values()).singleElement().satisfies(a ->
                assertThat(a.getMatchedEventIds()).containsExactly("evt-p-again-2", "evt-p-again-3"));
    }

    /**
     * Two readings of one vehicle at the same millisecond, a hot one and a cool one, all the run's readings behind the
     * watermark (a drill's telemetry after an earlier drill moved event time on): in event-id order the cool one comes
     * first and ends the run at r4. The hot one arrives first and grows the run to r1..x5 for a moment; when the cool
     * one comes, the run is r1..r4 again. Seen on a cluster drill: the r1..r4 alert written a second time, superseding
     * r1..x5. Expected: r1..r4 in effect and no alert id written twice.
     */
    @Test
    void twoReadingsAtTheSameMillisecondArrivingLateDoNotWriteAnAlertTwice() throws Exception {
        List<StampedFact> run = List.of(
                fact(reading("r1", TRUCK, 106, 1_001, minute(1))), fact(reading("r2", TRUCK, 107, 1_002, minute(2))),
                fact(reading("r3", TRUCK, 108, 1_003, minute(3))), fact(reading("r4", TRUCK, 109, 1_004, minute(4))));
        StampedFact hot = fact(reading("x5", TRUCK, 116, 1_005, minute(5)));
        StampedFact cool = fact(reading("a5", TRUCK, 86, 1_005, minute(5)));
        open(overheating);
        watermarks(minute(8));

        for (StampedFact f : concat(run, List.of(hot, cool))) {
            harness.processElement1(new StreamRecord<>(f, f.getFact().getOccurredAtMs()));
        }
        watermarks(minute(30));

        assertThat(output().stream().map(Alert::getAlertId).toList()).as("alert ids written").doesNotHaveDuplicates();
        assertThat(AlertsInEffect.of(output()).values()).singleElement().satisfies(a ->
                assertThat(a.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r3", "evt-r4"));
    }

    private void onTime(StampedFact f) throws Exception {
        long at = f.getFact().getOccurredAtMs();
        harness.processElement1(new StreamRecord<>(f, at));
        watermarks(Instant.ofEpochMilli(at));
    }

    private void watermarks(Instant at) throws Exception {
        harness.processWatermark1(new Watermark(at.toEpochMilli()));
        harness.processWatermark2(new Watermark(at.toEpochMilli()));
    }

    /** What AlertsOfMatches gives for a match of these facts: the pure function's alert, revising {@code supersedes}. */
    private Alert cepAlert(List<StampedFact> match, String supersedes) {
        List<CepFact> facts = match.stream().map(StampedFact::getFact).toList();
        Finding f = overheating.find(TRUCK, facts, V1, null).get(0);
        return Alerts.of(f, overheating.kind().ruleId(), overheating.version(V1), supersedes);
    }

    private List<Alert> output() {
        return new ArrayList<>(harness.extractOutputValues());
    }

    private void open(SubjectPattern<?> pattern) throws Exception {
        open(pattern, Topics.VEHICLE_TELEMETRY.name());
    }

    private void open(SubjectPattern<?> pattern, String anchorTopic) throws Exception {
        open(pattern, anchorTopic, null);
    }

    /** A new harness, restored from {@code checkpoint} when there is one. */
    private void open(SubjectPattern<?> pattern, String anchorTopic, OperatorSubtaskState checkpoint) throws Exception {
        harness = new KeyedTwoInputStreamOperatorTestHarness<>(
                new KeyedCoProcessOperator<>(new LateReconciler(pattern, anchorTopic)),
                StampedFact::getSubject, e -> e.isLeft() ? e.left().getSubject().getId() : e.right().getSubject(),
                Types.STRING);
        if (checkpoint != null) {
            harness.initializeState(checkpoint);
        }
        harness.open();
    }

    private StampedFact fact(Object event) {
        return fact(overheating, event);
    }

    private static StampedFact fact(SubjectPattern<?> pattern, Object event) {
        @SuppressWarnings("unchecked")
        SubjectPattern<Object> p = (SubjectPattern<Object>) pattern;
        return new StampedFact(p.subject(event), p.factOf(event).orElseThrow(), Thresholds.of(V1, p.kind()));
    }
}
