package io.streamhouse.loadtests.score;

import io.streamhouse.domain.detection.AlertsInEffect;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.loadtests.generator.Anomaly;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class AlertsInEffectTest {
    static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

    static Anomaly overheating(String vehicle, String... events) {
        return new Anomaly(AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE, vehicle, List.of(events), T0,
                T0.plusSeconds(60), Map.of());
    }

    @Test
    void aRevisionReplacesTheAlertItSupersedesAlongTheWholeChain() {
        Alert first = TestAlerts.of(overheating("truck-1", "e2", "e3", "e4"), "a1");
        Alert second = TestAlerts.revision(overheating("truck-1", "e1", "e2", "e3", "e4"), "a2", "a1");
        Alert third = TestAlerts.revision(overheating("truck-1", "e1", "e2", "e3", "e4", "e5"), "a3", "a2");
        Alert other = TestAlerts.of(overheating("truck-2", "f1", "f2", "f3"), "b1");

        AlertsInEffect resolved = AlertsInEffect.of(List.of(first, other, second, third));

        assertThat(resolved.inEffect()).extracting(Alert::getAlertId).containsExactly("b1", "a3");
        assertThat(resolved.superseded()).isEqualTo(2);
        assertThat(resolved.read()).isEqualTo(4);
    }

    @Test
    void aWithdrawalRemovesBothItselfAndTheAlertItWithdraws() {
        Alert alert = TestAlerts.of(overheating("truck-1", "e1", "e2", "e3"), "a1");
        Alert withdrawn = TestAlerts.withdrawal(overheating("truck-1", "e1", "e2", "e3"), "w1", "a1");

        AlertsInEffect resolved = AlertsInEffect.of(List.of(alert, withdrawn));

        assertThat(resolved.inEffect()).isEmpty();
        assertThat(resolved.withdrawals()).isEqualTo(1);
    }

    @Test
    void anAlertReadTwiceCountsOnce() {
        Alert alert = TestAlerts.of(overheating("truck-1", "e1", "e2", "e3"), "a1");

        AlertsInEffect resolved = AlertsInEffect.of(List.of(alert, Alert.newBuilder(alert).build()));

        assertThat(resolved.inEffect()).hasSize(1);
        assertThat(resolved.duplicates()).isEqualTo(1);
    }
}
