package io.streamhouse.replay;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.testdata.SampleEvents;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/** Which alerts the CEP comparison counts as settled at the cut, and how a difference is named. */
class AlertVerifyTest {
    /** Card testing settled up to T0 + 1 min; events e1..e4 before the cut, e1..e3 at T0, e4 at T0 + 1 min. */
    private static final AlertVerify.Input INPUT = new AlertVerify.Input(4,
            Map.of("e1", T0, "e2", T0, "e3", T0, "e4", T0.plus(ONE_MINUTE)),
            Map.of(AlertType.CARD_TESTING, T0.plus(ONE_MINUTE)), Map.of());

    private static Alert alert() {
        return (Alert) SampleEvents.oneOfEach().stream().filter(Alert.class::isInstance).findFirst().orElseThrow();
    }

    @Test
    void anAlertIsSettledWhenItAndEveryMatchedEventAreAtOrBeforeItsPatternsHorizon() {
        Alert a = alert(); // card testing, events e1..e4, window end T0 + 1 min
        assertThat(AlertVerify.settled(a, INPUT)).isTrue();

        assertThat(AlertVerify.settled(Alert.newBuilder(a).setWindowEnd(T0.plus(ONE_MINUTE).plusMillis(1)).build(), INPUT))
                .as("fires after the horizon (a deadline live's watermark has not passed)").isFalse();
        assertThat(AlertVerify.settled(Alert.newBuilder(a).setMatchedEventIds(List.of("e1", "after-cut")).build(), INPUT))
                .as("caused by an event after the cut").isFalse();
        assertThat(AlertVerify.settled(Alert.newBuilder(a).setType(AlertType.PARCEL_SLA_BREACH).build(), INPUT))
                .as("a pattern whose inputs were empty before the cut").isFalse();
        var later = new AlertVerify.Input(4, Map.of("e1", T0, "e2", T0, "e3", T0, "e4", T0.plus(ONE_MINUTE).plusMillis(1)),
                INPUT.horizons(), Map.of());
        assertThat(AlertVerify.settled(a, later)).as("a matched event live has not evaluated yet").isFalse();
    }

    @Test
    void aDifferenceNamesTheFieldsIncludingTheEnvelopes() {
        Alert a = alert();
        Alert b = Alert.newBuilder(a).setSeverity(io.streamhouse.domain.event.Severity.LOW)
                .setEnvelope(io.streamhouse.domain.event.Envelope.newBuilder(a.getEnvelope()).setRecordedAt(Instant.EPOCH).build())
                .build();
        assertThat(AlertVerify.differingFields(a, b)).containsExactly("envelope.recordedAt", "severity");
        assertThat(AlertVerify.differingFields(a, Alert.newBuilder(a).build())).isEmpty();
    }

    /** Engine overheating settled up to T0 + 10 min; readings r1..r4 at T0 + 1..4 min. */
    private static final AlertVerify.Input READINGS = new AlertVerify.Input(4,
            Map.of("r1", T0.plus(ONE_MINUTE), "r2", T0.plus(ONE_MINUTE.multipliedBy(2)),
                    "r3", T0.plus(ONE_MINUTE.multipliedBy(3)), "r4", T0.plus(ONE_MINUTE.multipliedBy(4)),
                    "r5", T0.plus(ONE_MINUTE.multipliedBy(5))),
            Map.of(AlertType.ENGINE_OVERHEATING, T0.plus(ONE_MINUTE.multipliedBy(10))), Map.of());

    /** An overheating alert of truck-7 with these readings, its id named after them, superseding {@code before}. */
    private static Alert overheating(String supersedes, String... readings) {
        Alert a = alert();
        String id = "oh-" + String.join("-", readings);
        Map<String, String> attributes = new java.util.TreeMap<>(Map.of("readings", Integer.toString(readings.length)));
        if (supersedes != null) {
            attributes.put(AlertVerify.SUPERSEDES, supersedes);
        }
        return Alert.newBuilder(a).setAlertId(id)
                .setEnvelope(io.streamhouse.domain.event.Envelope.newBuilder(a.getEnvelope()).setEventId(id).build())
                .setType(AlertType.ENGINE_OVERHEATING).setPatternId("cep-engine-overheating")
                .setSubject(io.streamhouse.domain.event.AlertSubject.newBuilder().setKind(io.streamhouse.domain.event.SubjectKind.VEHICLE)
                        .setId("truck-7").build())
                .setMatchedEventIds(List.of(readings)).setAttributes(attributes)
                .setWindowStart(T0).setWindowEnd(T0.plus(ONE_MINUTE.multipliedBy(4))).build();
    }

    private static Alert withdrawal(Alert of) {
        return Alert.newBuilder(of).setAlertId("w-" + of.getAlertId())
                .setAttributes(Map.of(AlertVerify.SUPERSEDES, of.getAlertId()))
                .setStatus(io.streamhouse.domain.event.AlertStatus.WITHDRAWN).build();
    }

    private static Map<String, List<Alert>> byId(Alert... alerts) {
        Map<String, List<Alert>> side = new java.util.TreeMap<>();
        for (Alert a : alerts) {
            side.computeIfAbsent(a.getAlertId(), k -> new java.util.ArrayList<>()).add(a);
        }
        return side;
    }

    private static Report.AlertReport compare(Map<String, List<Alert>> live, Map<String, List<Alert>> shadow) {
        return new AlertVerify(null, null, 10).compare(READINGS, live, shadow);
    }

    /**
     * The restart-broker case: live read the 1st reading late, after 2-3-4 were alerted; the rebuild read it in order.
     * The intermediate alerts differ, the alert in effect does not.
     */
    @Test
    void chainsThatEndInTheSameAlertAreEqualWhateverTheIntermediateAlerts() {
        Alert final4Live = overheating("oh-r2-r3-r4", "r1", "r2", "r3", "r4");
        Alert final4Shadow = overheating("oh-r1-r2-r3", "r1", "r2", "r3", "r4");
        var live = byId(overheating(null, "r2", "r3", "r4"), final4Live);
        var shadow = byId(overheating(null, "r1", "r2", "r3"), final4Shadow);

        Report.AlertReport report = compare(live, shadow);

        assertThat(report.divergent()).as(report.toString()).isZero();
        assertThat(report.liveCompared()).isEqualTo(1);
        assertThat(report.shadowCompared()).isEqualTo(1);

        Alert falseAlarm = overheating(null, "r1", "r2", "r4");
        assertThat(compare(byId(falseAlarm, withdrawal(falseAlarm)), byId()).divergent())
                .as("an alert withdrawn live, never written by the rebuild").isZero();
    }

    /**
     * Live went r1-r2-r3-r4 to r1..r5 and back (a cool reading at r5's millisecond came late and sorts before it), so
     * its r1..r4 alert is a re-issue under an id of its own; the rebuild read both together and never left r1..r4.
     * The same occurrence in effect on each side, each id written once: equal. The same pair with another value is not.
     */
    @Test
    void anOccurrenceReissuedUnderAnotherIdIsEqualToItsFirstAlert() {
        Alert four = overheating(null, "r1", "r2", "r3", "r4");
        Alert five = overheating(four.getAlertId(), "r1", "r2", "r3", "r4", "r5");
        Alert reissued = Alert.newBuilder(overheating(five.getAlertId(), "r1", "r2", "r3", "r4")).setAlertId("oh-reissue")
                .setEnvelope(io.streamhouse.domain.event.Envelope.newBuilder(four.getEnvelope()).setEventId("oh-reissue").build()).build();

        Report.AlertReport report = compare(byId(four, five, reissued), byId(four));

        assertThat(report.divergent()).as(report.toString()).isZero();
        Alert otherValue = Alert.newBuilder(reissued).setSummary("PLANTED").build();
        assertThat(compare(byId(four, five, otherValue), byId(four)).divergent()).as("a re-issue with another value").isEqualTo(2);
    }

    @Test
    void aDivergenceInTheAlertsInEffectIsReported() {
        Alert final4 = overheating("oh-r1-r2-r3", "r1", "r2", "r3", "r4");
        var shadow = byId(overheating(null, "r1", "r2", "r3"), final4);

        Report.AlertReport lostRevision = compare(byId(overheating(null, "r2", "r3", "r4")), shadow);
        assertThat(lostRevision.onlyInLive()).as(lostRevision.toString()).isEqualTo(1);
        assertThat(lostRevision.onlyInShadow()).isEqualTo(1);
        assertThat(lostRevision.divergent()).isEqualTo(2);
        assertThat(lostRevision.differences()).extracting(Report.Difference::reason)
                .anySatisfy(r -> assertThat(r).contains("in effect only in live")
                        .contains("occurrence cep-engine-overheating|VEHICLE:truck-7|r2,r3,r4"));

        Report.AlertReport withdrawnLive = compare(byId(overheating(null, "r1", "r2", "r3"), final4, withdrawal(final4)), shadow);
        assertThat(withdrawnLive.onlyInShadow()).as("withdrawn live, in effect in the rebuild").isEqualTo(1);
        assertThat(withdrawnLive.divergent()).isEqualTo(1);

        Alert otherValue = Alert.newBuilder(final4).setSummary("PLANTED").build();
        Report.AlertReport differs = compare(byId(overheating(null, "r1", "r2", "r3"), otherValue), shadow);
        assertThat(differs.differing()).isEqualTo(1);
        assertThat(differs.differences().get(0).reason()).startsWith("fields differ: summary");

        Report.AlertReport twice = compare(byId(overheating(null, "r1", "r2", "r3"), overheating(null, "r1", "r2", "r3"), final4), shadow);
        assertThat(twice.differing()).as("an alert id written twice, though superseded").isEqualTo(1);
        assertThat(twice.differences().get(0).reason()).startsWith("alerts with this id: 2 live, 1 shadow");
    }
}
