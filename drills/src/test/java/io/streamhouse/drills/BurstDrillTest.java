package io.streamhouse.drills;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BurstDrillTest {
    private static BurstDrill.PatternResult perfect(String pattern) {
        return new BurstDrill.PatternResult(pattern, 20, 20, 20, 1.0, 1.0, List.of(), List.of());
    }

    private static BurstDrill.Detection detection(List<BurstDrill.PatternResult> patterns, double latePercent, double beyondPercent) {
        return new BurstDrill.Detection(true, true, 100, 90, patterns, Math.round(latePercent * 500), latePercent,
                Math.round(beyondPercent * 500), beyondPercent, 5_000);
    }

    @Test
    void passesWhenEveryPatternIsFoundAndTheLateShareIsWithinAPointOfWhatWasDeliveredBeyondTheBound() {
        assertThat(BurstDrill.detectionFailures(detection(List.of(perfect("card testing"), perfect("parcel SLA")), 2.6, 2.0), 0)).isEmpty();
    }

    @Test
    void aMissedAnomalyFailsNamingThePattern() {
        var missed = new BurstDrill.PatternResult("engine overheating", 20, 19, 19, 0.95, 1.0, List.of("ENGINE_OVERHEATING vehicle truck-1 ..."), List.of());
        assertThat(BurstDrill.detectionFailures(detection(List.of(perfect("card testing"), missed), 2.0, 2.0), 0))
                .containsExactly("detection of engine overheating: recall 95.00 %, precision 100.00 % (1 missed, 0 extra)");
    }

    @Test
    void precisionBelowTheScorersBoundFails() {
        var extras = new BurstDrill.PatternResult("card testing", 20, 21, 20, 1.0, 20 / 21.0, List.of(), List.of("CARD_TESTING card x ..."));
        assertThat(BurstDrill.detectionFailures(detection(List.of(extras), 2.0, 2.0), 0)).singleElement().asString()
                .startsWith("detection of card testing: recall 100.00 %, precision 95.24 %");
    }

    @Test
    void moreThanAPointMoreLateThanDeliveredBeyondTheBoundFails() {
        assertThat(BurstDrill.detectionFailures(detection(List.of(perfect("card testing")), 3.1, 2.0), 0)).singleElement().asString()
                .startsWith("3.10 % of the burst went to the .late topics, more than the 2.00 %");
    }

    @Test
    void unreadableAlertsAndUnsettledTopicsFail() {
        var d = new BurstDrill.Detection(true, false, 100, 90, List.of(perfect("card testing")), 0, 0, 0, 0, 0);
        assertThat(BurstDrill.detectionFailures(d, 2)).containsExactly("2 alert records unreadable",
                "the alert topics were still growing at the timeout");
    }
}
