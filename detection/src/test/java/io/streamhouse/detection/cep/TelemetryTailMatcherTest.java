package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.VehicleTelemetry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;

import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.domain.testdata.Times.ONE_HOUR;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The telemetry patterns keep only their tail in the per-vehicle value (the last reading; the current rising run) and
 * the older readings apart ({@code settled-facts}): given readings that settle, when a late reading or a new threshold
 * arrives, expect the alerts a full re-evaluation gives, and state and timers cleared afterwards.
 */
class TelemetryTailMatcherTest {
    private static final String TRUCK = "truck-7";

    private static MatcherHarness<VehicleTelemetry> matcher(SubjectPattern<VehicleTelemetry> pattern) throws Exception {
        return new MatcherHarness<>(pattern, AvroTypes.of(VehicleTelemetry.class), VehicleTelemetry::getVehicleId);
    }

    private static Instant minute(int m) {
        return T0.plus(ONE_MINUTE.multipliedBy(m));
    }

    /**
     * Readings waiting for their time share an entry of {@code pending-facts} when they have the same millisecond, and
     * the value lists the times that have an entry (the arrival reads an entry only for a listed time): a second reading
     * at a waiting reading's millisecond joins it, and a repeat of a waiting reading counts once.
     */
    @Test
    void aWaitingReadingsMillisecondIsSharedByAnotherReadingAndARepeatCountsOnce() throws Exception {
        try (MatcherHarness<VehicleTelemetry> m = matcher(new OverheatingPattern())) {
            m.send(reading("h1", TRUCK, 106, 1_000, minute(0)))
                    .send(reading("h2", TRUCK, 107, 1_001, minute(1)))
                    .send(reading("h2", TRUCK, 107, 1_001, minute(1)))
                    .send(reading("h3", TRUCK, 108, 1_002, minute(1)))
                    .send(reading("h4", TRUCK, 109, 1_003, minute(2)));
            assertThat(m.newAlerts()).as("all waiting").isEmpty();

            m.watermark(minute(2));
            List<Alert> alerts = m.newAlerts();
            assertThat(alerts).isNotEmpty();
            assertThat(alerts.get(alerts.size() - 1).getMatchedEventIds()).as("one run, the repeat once, both of minute 1")
                    .containsExactly("evt-h1", "evt-h2", "evt-h3", "evt-h4");

            m.watermark(minute(2).plus(ONE_HOUR));
            assertThat(m.keyedStateEntries()).isZero();
            assertThat(m.eventTimeTimers()).isZero();
        }
    }

    @Test
    void aLateReadingBetweenTwoSettledOnesMovesTheMaintenanceAlertToTheReadingThatPassedTheMark() throws Exception {
        MatcherHarness<VehicleTelemetry> m = matcher(new MaintenanceDuePattern());
        try {
            m.send(reading("m1", TRUCK, 90, 14_999.5, minute(0)))
                    .send(reading("m3", TRUCK, 90, 15_002.0, minute(2)));
            for (int i = 4; i <= 10; i++) {
                m.send(reading("m" + i, TRUCK, 90, 15_000 + i, minute(i)));
            }
            m.watermark(minute(10));
            Alert first = m.newAlerts().get(0);
            assertThat(first.getMatchedEventIds()).containsExactly("evt-m1", "evt-m3");
            assertThat(m.keyedStateEntries()).as("the last reading in the value, the older ones in the map").isEqualTo(2);

            m = m.restartFromSnapshot();
            m.watermark(minute(10)).send(reading("m2", TRUCK, 90, 15_000.7, minute(1)));

            assertThat(m.newAlerts()).as("reconciled at once over the settled readings").singleElement().satisfies(a -> {
                assertThat(a.getMatchedEventIds()).containsExactly("evt-m1", "evt-m2");
                assertThat(a.getAttributes()).containsEntry("serviceMarkKm", "15000")
                        .containsEntry(Alerts.ANCHOR, "evt-m2");
            });

            m.send(reading("m1", TRUCK, 90, 14_999.5, minute(0)))
                    .send(reading("m2", TRUCK, 90, 15_000.7, minute(1)))
                    .send(reading("m11", TRUCK, 90, 15_011, minute(11)))
                    .watermark(minute(11));
            assertThat(m.newAlerts()).as("repeated readings count once, and the tail still follows").isEmpty();

            m.send(reading("m12", TRUCK, 90, 30_000.1, minute(12))).watermark(minute(12));
            assertThat(m.newAlerts()).singleElement().satisfies(a ->
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-m11", "evt-m12"));

            m.watermark(minute(12).plus(ONE_HOUR).plusMillis(1));
            assertThat(m.keyedStateEntries()).isZero();
            assertThat(m.eventTimeTimers()).isZero();
        } finally {
            m.close();
        }
    }

    @Test
    void aLateReadingAfterTheLastEvaluatedOneIsEvaluatedOnTheTailAlone() throws Exception {
        try (var m = matcher(new MaintenanceDuePattern())) {
            for (int i = 0; i < 5; i++) {
                m.send(reading("a" + i, TRUCK, 90, 14_990 + i, minute(i)));
            }
            m.watermark(minute(30));
            assertThat(m.newAlerts()).isEmpty();

            m.send(reading("late", TRUCK, 90, 15_000.5, minute(10)));

            assertThat(m.newAlerts()).singleElement().satisfies(a ->
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-a4", "evt-late"));
            m.watermark(minute(10).plus(ONE_HOUR).plusMillis(1));
            assertThat(m.keyedStateEntries()).isZero();
            assertThat(m.eventTimeTimers()).isZero();
        }
    }

    @Test
    void aReadingWaitingForItsTimeOutlivesTheCleanUpOfAnOlderOneAnHourBeforeIt() throws Exception {
        try (var m = matcher(new MaintenanceDuePattern())) {
            m.send(reading("m1", TRUCK, 90, 14_999.0, minute(0))).watermark(minute(1));
            m.send(reading("m2", TRUCK, 90, 15_001.0, minute(120)));
            assertThat(m.keyedStateEntries()).as("the evaluated reading in the value, the waiting one apart").isEqualTo(2);

            m.watermark(minute(61));
            assertThat(m.newAlerts()).isEmpty();
            assertThat(m.keyedStateEntries()).as("m1 dropped; where history was cut, and m2 waiting").isEqualTo(2);
            assertThat(m.eventTimeTimers()).as("m2's evaluation, and the clean-up re-armed after m2").isEqualTo(2);

            m.watermark(minute(120));
            assertThat(m.newAlerts()).as("m1 was dropped: nothing before m2 to compare with, as before").isEmpty();

            m.watermark(minute(180).plusMillis(1));
            assertThat(m.keyedStateEntries()).isZero();
            assertThat(m.eventTimeTimers()).isZero();
        }
    }

    @Test
    void aLateReadingInsideARunAfterSettledCoolReadingsRevisesTheOverheatingAlert() throws Exception {
        try (var m = matcher(new OverheatingPattern())) {
            for (int i = 0; i < 4; i++) {
                m.send(reading("c" + i, TRUCK, 90 + i, 1000 + i, minute(i)));
            }
            m.send(reading("r1", TRUCK, 106.0, 1004, minute(4)))
                    .send(reading("r2", TRUCK, 107.0, 1005, minute(5)))
                    .send(reading("r4", TRUCK, 109.0, 1007, minute(7)))
                    .watermark(minute(7));
            Alert first = m.newAlerts().get(0);
            assertThat(first.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r4");
            assertThat(m.keyedStateEntries()).as("the run in the value, the cool readings in the map").isEqualTo(2);

            m.send(reading("r3", TRUCK, 108.0, 1006, minute(6)));

            assertThat(m.newAlerts()).singleElement().satisfies(a -> {
                assertThat(a.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r3", "evt-r4");
                assertThat(a.getAttributes()).containsEntry(Alerts.SUPERSEDES, first.getAlertId());
            });

            m.send(reading("cool", TRUCK, 95.0, 1008, minute(8)))
                    .send(reading("h1", TRUCK, 106.0, 1009, minute(9)))
                    .send(reading("h2", TRUCK, 107.0, 1010, minute(10)))
                    .send(reading("h3", TRUCK, 108.0, 1011, minute(11)))
                    .watermark(minute(11));
            assertThat(m.newAlerts()).as("a second run after the first one ended").singleElement().satisfies(a ->
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-h1", "evt-h2", "evt-h3"));

            m.watermark(minute(11).plus(Duration.ofMinutes(10)).plusMillis(1));
            assertThat(m.keyedStateEntries()).isZero();
            assertThat(m.eventTimeTimers()).isZero();
        }
    }

    @Test
    void aLowerThresholdFromTheRulesTopicIsAppliedToTheSettledReadingsToo() throws Exception {
        try (var m = matcher(new OverheatingPattern())) {
            m.send(reading("w1", TRUCK, 101.0, 1000, minute(0)))
                    .send(reading("w2", TRUCK, 102.0, 1001, minute(1)))
                    .send(reading("w3", TRUCK, 103.0, 1002, minute(2)))
                    .send(reading("c1", TRUCK, 90.0, 1003, minute(3)))
                    .send(reading("c2", TRUCK, 91.0, 1004, minute(4)))
                    .watermark(minute(4));
            assertThat(m.newAlerts()).as("below the default 105 °C").isEmpty();

            RuleDefinition v2 = RuleDefinition.newBuilder(overheatingDefinition()).build();
            var params = new HashMap<>(v2.getParameters());
            params.put("thresholdC", "100.0");
            v2.setParameters(params);
            v2.setVersion(2);
            m.rule(v2).send(reading("c3", TRUCK, 90.0, 1005, minute(5))).watermark(minute(5));

            List<Alert> alerts = m.newAlerts();
            assertThat(alerts).singleElement().satisfies(a -> {
                assertThat(a.getMatchedEventIds()).containsExactly("evt-w1", "evt-w2", "evt-w3");
                assertThat(a.getPatternVersion()).isEqualTo(2);
            });
        }
    }

    private static RuleDefinition overheatingDefinition() {
        return PatternSettings.defaultDefinitions().stream()
                .filter(d -> d.getRuleId().equals(PatternSettings.Kind.ENGINE_OVERHEATING.ruleId()))
                .findFirst().orElseThrow();
    }
}
