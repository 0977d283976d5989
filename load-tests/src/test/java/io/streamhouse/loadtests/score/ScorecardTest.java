package io.streamhouse.loadtests.score;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Given a generation and the alerts a stack wrote, expect per-pattern recall and precision and the misses named. */
class ScorecardTest {
    static Generation generation;
    static GenerationScope scope;

    @BeforeAll
    static void generate() {
        generation = Generator.generate(GeneratorConfig.defaults(11, 4_000));
        scope = GenerationScope.of(generation);
        assertThat(generation.anomalies()).extracting(Anomaly::type).contains(Scorecard.PLANTED.toArray(AlertType[]::new));
    }

    static List<Alert> alertsForEveryPlanted() {
        List<Alert> alerts = new ArrayList<>();
        int n = 0;
        for (Anomaly a : generation.anomalies()) {
            alerts.add(TestAlerts.of(a, "alert-" + n++));
        }
        return alerts;
    }

    @Test
    void anAlertForEveryPlantedAnomalyAndNothingElsePasses() {
        Scorecard card = Scorecard.of(generation.anomalies(), alertsForEveryPlanted(), scope);

        assertThat(card.passes()).isTrue();
        assertThat(card.patterns()).hasSize(5).allSatisfy(p -> {
            assertThat(p.score().recall()).isEqualTo(1.0);
            assertThat(p.score().precision()).isEqualTo(1.0);
            assertThat(p.score().expected()).isPositive();
        });
    }

    @Test
    void aMissedAnomalyFailsItsPatternAndIsNamed() {
        List<Alert> alerts = alertsForEveryPlanted();
        Alert dropped = alerts.stream().filter(a -> a.getType() == AlertType.PARCEL_SLA_BREACH).findFirst().orElseThrow();
        alerts.remove(dropped);

        Scorecard card = Scorecard.of(generation.anomalies(), alerts, scope);

        assertThat(card.passes()).isFalse();
        Scorecard.PatternScore parcels = card.patterns().stream().filter(p -> p.type() == AlertType.PARCEL_SLA_BREACH).findFirst().orElseThrow();
        assertThat(parcels.passes()).isFalse();
        assertThat(parcels.score().missed()).extracting(Anomaly::subjectId).containsExactly(dropped.getSubject().getId());
        assertThat(card.patterns()).filteredOn(p -> p.type() != AlertType.PARCEL_SLA_BREACH).allMatch(Scorecard.PatternScore::passes);
        String report = print(card, Set.of(dropped.getMatchedEventIds().get(0)));
        assertThat(report).contains("missed PARCEL_SLA_BREACH parcel " + dropped.getSubject().getId())
                .contains("1 of its " + dropped.getMatchedEventIds().size() + " events reached the CEP job behind its watermark")
                .containsPattern("parcel SLA .* FAIL");
    }

    @Test
    void anAlertOfTheGenerationThatMatchesNothingPlantedIsAnExtra() {
        List<Alert> alerts = alertsForEveryPlanted();
        Anomaly planted = generation.anomalies().stream().filter(a -> a.type() == AlertType.CARD_TESTING).findFirst().orElseThrow();
        // The same card and events, but a window that starts one event later: a different occurrence.
        Anomaly shifted = new Anomaly(planted.type(), planted.subjectKind(), planted.subjectId(),
                planted.eventIds().subList(1, planted.eventIds().size()), planted.windowStart().plusMillis(1),
                planted.windowEnd(), Map.of());
        alerts.add(TestAlerts.of(shifted, "extra-1"));

        Scorecard card = Scorecard.of(generation.anomalies(), alerts, scope);

        Scorecard.PatternScore cardTesting = card.patterns().get(0);
        assertThat(cardTesting.type()).isEqualTo(AlertType.CARD_TESTING);
        assertThat(cardTesting.score().recall()).isEqualTo(1.0);
        assertThat(cardTesting.score().spurious()).extracting(Anomaly::identity).containsExactly(shifted.identity());
        assertThat(cardTesting.score().precision()).isLessThan(Scorecard.MIN_PRECISION);
        assertThat(card.passes()).isFalse();
        assertThat(print(card, Set.of())).contains("extra  CARD_TESTING card " + planted.subjectId());
    }

    @Test
    void alertsOfOtherTrafficAndOfPatternsNotPlantedAreCountedNotScored() {
        List<Alert> alerts = alertsForEveryPlanted();
        // The stack's demo: its own events, not the generation's.
        alerts.add(TestAlerts.of(new Anomaly(AlertType.CARD_TESTING, SubjectKind.CARD, "tok-demo", List.of("demo-42-1", "demo-42-2"),
                AlertsInEffectTest.T0, AlertsInEffectTest.T0.plusSeconds(5), Map.of()), "demo-alert"));
        // Maintenance due on one of the generation's trucks: a real alert, but nothing was planted to score it by.
        String reading = generation.events().stream().filter(e -> e.kind().name().equals("VEHICLE_TELEMETRY")).findFirst().orElseThrow().eventId();
        alerts.add(TestAlerts.of(new Anomaly(AlertType.MAINTENANCE_DUE, SubjectKind.VEHICLE, "truck-x", List.of(reading),
                AlertsInEffectTest.T0, AlertsInEffectTest.T0, Map.of()), "maintenance-alert"));

        Scorecard card = Scorecard.of(generation.anomalies(), alerts, scope);

        assertThat(card.passes()).isTrue();
        assertThat(card.outsideGeneration()).isEqualTo(1);
        assertThat(card.notScored()).isEqualTo(1);
    }

    @Test
    void precisionAtTheThresholdPassesAndJustBelowFails() {
        Anomaly base = generation.anomalies().get(0);
        List<Anomaly> planted = new ArrayList<>();
        List<Alert> alerts = new ArrayList<>();
        for (int i = 0; i < 199; i++) {
            Anomaly a = new Anomaly(AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE, "truck-" + i, base.eventIds(),
                    base.windowStart(), base.windowEnd(), Map.of());
            planted.add(a);
            alerts.add(TestAlerts.of(a, "a" + i));
        }
        alerts.add(TestAlerts.of(new Anomaly(AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE, "truck-extra", base.eventIds(),
                base.windowStart(), base.windowEnd(), Map.of()), "extra"));

        Scorecard atThreshold = Scorecard.of(planted, alerts, scope);      // 199 of 200: 99.5 %
        alerts.add(TestAlerts.of(new Anomaly(AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE, "truck-extra-2", base.eventIds(),
                base.windowStart(), base.windowEnd(), Map.of()), "extra-2"));
        Scorecard below = Scorecard.of(planted, alerts, scope);            // 199 of 201

        assertThat(atThreshold.patterns().get(4).passes()).isTrue();
        assertThat(below.patterns().get(4).passes()).isFalse();
    }

    static String print(Scorecard card, Set<String> late) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        card.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), late);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
