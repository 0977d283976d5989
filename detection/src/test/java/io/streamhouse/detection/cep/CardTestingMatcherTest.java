package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Cards;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;

import static io.streamhouse.detection.cep.CepEvents.payment;
import static io.streamhouse.domain.testdata.Times.ONE_HOUR;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.ONE_SECOND;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

class CardTestingMatcherTest {
    private static final TypeInformation<TransactionAuthorizationRequested> TYPE =
            AvroTypes.of(TransactionAuthorizationRequested.class);
    private MatcherHarness<TransactionAuthorizationRequested> matcher;

    @BeforeEach
    void open() throws Exception {
        matcher = new MatcherHarness<>(new CardTestingPattern(), TYPE, TransactionAuthorizationRequested::getCardToken);
    }

    @AfterEach
    void close() throws Exception {
        matcher.close();
    }

    @Test
    void threeSmallThenALargeWithinTenMinutesIsOneAlertWithEveryEventAndThePatternVersion() throws Exception {
        matcher.send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "0.50", T0.plus(ONE_MINUTE)))
                .send(payment("s3", Cards.STOLEN, "2.00", T0.plus(ONE_MINUTE.multipliedBy(2))))
                .send(payment("big", Cards.STOLEN, "750.00", T0.plus(ONE_MINUTE.multipliedBy(9))));
        assertThat(matcher.newAlerts()).as("nothing before the watermark passes the large payment").isEmpty();

        matcher.watermark(T0.plus(ONE_MINUTE.multipliedBy(9)));

        List<Alert> alerts = matcher.newAlerts();
        assertThat(alerts).hasSize(1);
        Alert alert = alerts.get(0);
        assertThat(alert.getType()).isEqualTo(AlertType.CARD_TESTING);
        assertThat(alert.getCategory()).isEqualTo(AlertCategory.FRAUD);
        assertThat(alert.getSubject().getId()).isEqualTo(Cards.STOLEN);
        assertThat(alert.getMatchedEventIds()).containsExactly("evt-s1", "evt-s2", "evt-s3", "evt-big");
        assertThat(alert.getPatternId()).isEqualTo("cep-card-testing");
        assertThat(alert.getPatternVersion()).isEqualTo(1);
        assertThat(alert.getWindowStart()).isEqualTo(T0);
        assertThat(alert.getWindowEnd()).isEqualTo(T0.plus(ONE_MINUTE.multipliedBy(9)));
    }

    @Test
    void stateAndTimersAreClearedOnceEventTimePassesTheRetention() throws Exception {
        matcher.send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_SECOND)))
                .send(payment("s3", Cards.STOLEN, "1.00", T0.plus(ONE_SECOND.multipliedBy(2))))
                .send(payment("big", Cards.STOLEN, "900.00", T0.plus(ONE_MINUTE)))
                .watermark(T0.plus(ONE_MINUTE));
        assertThat(matcher.newAlerts()).hasSize(1);
        assertThat(matcher.keyedStateEntries()).isPositive();

        matcher.watermark(T0.plus(ONE_HOUR));

        assertThat(matcher.newAlerts()).as("no second alert for the same burst").isEmpty();
        assertThat(matcher.keyedStateEntries()).isZero();
        assertThat(matcher.eventTimeTimers()).isZero();
    }

    @Test
    void aPaymentBetweenTheThresholdsTakesPartInNothingAndKeepsNeitherStateNorTimers() throws Exception {
        matcher.send(payment("mid", Cards.ALICE, "40.00", T0));

        assertThat(matcher.keyedStateEntries()).isZero();
        assertThat(matcher.eventTimeTimers()).isZero();
    }

    @Test
    void pendingSmallPaymentsHoldOneStateEntryOneEvaluationTimerAndOneCleanUpTimer() throws Exception {
        matcher.send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_SECOND)));

        assertThat(matcher.keyedStateEntries()).as("one value per card").isEqualTo(1);
        assertThat(matcher.eventTimeTimers()).as("one evaluation (at the first) and one clean-up").isEqualTo(2);

        matcher.watermark(T0.plus(ONE_MINUTE));
        assertThat(matcher.eventTimeTimers()).as("only the clean-up is left").isEqualTo(1);
    }

    @Test
    void outOfOrderWithinTheBoundIsSeenInEventTimeOrder() throws Exception {
        matcher.send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE)))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE.multipliedBy(3))))
                .send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s3", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE.multipliedBy(2))))
                .watermark(T0.plus(ONE_MINUTE.multipliedBy(5)));
        assertThat(matcher.newAlerts()).singleElement()
                .satisfies(a -> assertThat(a.getMatchedEventIds()).containsExactly("evt-s1", "evt-s2", "evt-s3", "evt-big"));
    }

    @Test
    void twoSmallOrSmallsOlderThanTheWindowAreNoCardTest() throws Exception {
        matcher.send(payment("old", Cards.STOLEN, "1.00", T0))
                .send(payment("s1", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE.multipliedBy(5))))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE.multipliedBy(6))))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE.multipliedBy(11))))
                .send(payment("mid", Cards.ALICE, "40.00", T0.plus(ONE_MINUTE.multipliedBy(11))))
                .watermark(T0.plus(ONE_HOUR));
        assertThat(matcher.newAlerts()).isEmpty();
    }

    @Test
    void aLateSmallPaymentCompletesTheBurstAfterTheWatermarkPassed() throws Exception {
        matcher.send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE)))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE.multipliedBy(3))))
                .watermark(T0.plus(ONE_MINUTE.multipliedBy(4)));
        assertThat(matcher.newAlerts()).as("two small ones are not enough").isEmpty();

        matcher.send(payment("s3", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE.multipliedBy(2))));

        assertThat(matcher.newAlerts()).as("reconciled at once, behind the watermark").singleElement()
                .satisfies(a -> assertThat(a.getMatchedEventIds()).containsExactly("evt-s1", "evt-s2", "evt-s3", "evt-big"));
    }

    @Test
    void aLateEventThatChangesAReportedBurstYieldsARevisionThatSaysWhatItSupersedes() throws Exception {
        matcher.send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE)))
                .send(payment("s3", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE.multipliedBy(2))))
                .send(payment("s4", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE.multipliedBy(3))))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE.multipliedBy(4))))
                .watermark(T0.plus(ONE_MINUTE.multipliedBy(5)));
        Alert first = matcher.newAlerts().get(0);

        matcher.send(payment("s1", Cards.STOLEN, "1.00", T0));

        assertThat(matcher.newAlerts()).singleElement().satisfies(a -> {
            assertThat(a.getMatchedEventIds()).containsExactly("evt-s1", "evt-s2", "evt-s3", "evt-s4", "evt-big");
            assertThat(a.getAttributes()).containsEntry(Alerts.SUPERSEDES, first.getAlertId());
        });
    }

    @Test
    void aRepeatedEventIdCountsOnce() throws Exception {
        matcher.send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_SECOND)))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_SECOND)))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE)))
                .watermark(T0.plus(ONE_MINUTE));
        assertThat(matcher.newAlerts()).isEmpty();
    }

    @Test
    void aNewThresholdFromTheRulesTopicAppliesWithoutRestartAndItsVersionGoesIntoTheAlert() throws Exception {
        RuleDefinition v2 = RuleDefinition.newBuilder(PatternSettings.defaultDefinitions().get(0)).build();
        var params = new HashMap<>(v2.getParameters());
        params.put("minSmall", "2");
        v2.setParameters(params);
        v2.setVersion(2);
        matcher.rule(v2)
                .send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE)))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE.multipliedBy(2))))
                .watermark(T0.plus(ONE_MINUTE.multipliedBy(2)));
        assertThat(matcher.newAlerts()).singleElement().satisfies(a -> {
            assertThat(a.getPatternVersion()).isEqualTo(2);
            assertThat(a.getMatchedEventIds()).containsExactly("evt-s1", "evt-s2", "evt-big");
        });
    }

    @Test
    void anInvalidDefinitionIsIgnoredAndTheLastValidOneStaysInForce() throws Exception {
        RuleDefinition bad = RuleDefinition.newBuilder(PatternSettings.defaultDefinitions().get(0)).build();
        bad.setParameters(java.util.Map.of("smallMax", "abc"));
        bad.setVersion(3);
        matcher.rule(bad)
                .send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE)))
                .send(payment("s3", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE)))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE.multipliedBy(2))))
                .watermark(T0.plus(ONE_MINUTE.multipliedBy(2)));
        assertThat(matcher.newAlerts()).singleElement().satisfies(a -> assertThat(a.getPatternVersion()).isEqualTo(1));
    }

    @Test
    void aPartialBurstSurvivesARestartFromASnapshot() throws Exception {
        matcher.send(payment("s1", Cards.STOLEN, "1.00", T0))
                .send(payment("s2", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE)))
                .watermark(T0.plus(ONE_MINUTE.multipliedBy(2)));
        matcher = matcher.restartFromSnapshot();
        matcher.send(payment("s3", Cards.STOLEN, "1.00", T0.plus(ONE_MINUTE.multipliedBy(3))))
                .send(payment("big", Cards.STOLEN, "600.00", T0.plus(ONE_MINUTE.multipliedBy(4))))
                .watermark(T0.plus(ONE_MINUTE.multipliedBy(4)));
        assertThat(matcher.newAlerts()).singleElement()
                .satisfies(a -> assertThat(a.getMatchedEventIds()).containsExactly("evt-s1", "evt-s2", "evt-s3", "evt-big"));
    }

    @Test
    void aSecondBurstAnHourLaterIsAlertedTooWhileTheFirstBurstsCleanUpIsStillPending() throws Exception {
        for (int b = 0; b < 3; b++) {
            int burst = b;
            java.time.Instant t = T0.plus(ONE_HOUR.multipliedBy(burst));
            for (int s = 0; s < 3; s++) {
                matcher.send(payment(burst + "s" + s, Cards.STOLEN, "1.00", t.plus(ONE_SECOND.multipliedBy(s))))
                        .watermark(t.plus(ONE_SECOND.multipliedBy(s)).minusMillis(1));
            }
            matcher.send(payment(burst + "L", Cards.STOLEN, "900.00", t.plus(ONE_SECOND.multipliedBy(10))))
                    .watermark(t.plus(ONE_SECOND.multipliedBy(10)).minusMillis(1))
                    .send(payment(burst + "n", Cards.STOLEN, "10.00", t.plus(ONE_SECOND.multipliedBy(11))))
                    .watermark(t.plus(ONE_SECOND.multipliedBy(11)).minusMillis(1));
            assertThat(matcher.newAlerts()).as("burst " + burst).singleElement().satisfies(a -> assertThat(
                    a.getMatchedEventIds()).containsExactly("evt-" + burst + "s0", "evt-" + burst + "s1",
                    "evt-" + burst + "s2", "evt-" + burst + "L"));
        }
    }
}
