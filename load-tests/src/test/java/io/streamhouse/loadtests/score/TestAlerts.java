package io.streamhouse.loadtests.score;

import io.streamhouse.domain.detection.AlertsInEffect;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.loadtests.generator.Anomaly;

import java.util.HashMap;
import java.util.Map;

/** Alerts as the CEP job writes them, made from an occurrence. */
final class TestAlerts {

    static Alert of(Anomaly a, String alertId) {
        return of(a, alertId, Map.of(), null);
    }

    static Alert revision(Anomaly a, String alertId, String supersedes) {
        return of(a, alertId, Map.of(AlertsInEffect.SUPERSEDES, supersedes), null);
    }

    static Alert withdrawal(Anomaly a, String alertId, String supersedes) {
        return of(a, alertId, Map.of(AlertsInEffect.SUPERSEDES, supersedes), AlertStatus.WITHDRAWN);
    }

    private static Alert of(Anomaly a, String alertId, Map<String, String> attributes, AlertStatus status) {
        return Alert.newBuilder()
                .setEnvelope(Envelopes.create("event-of-" + alertId, a.subjectId(), a.windowEnd(), a.windowEnd(), "cep", 2, null))
                .setAlertId(alertId).setType(a.type()).setCategory(AlertCategory.FRAUD).setSeverity(Severity.HIGH)
                .setSubject(new AlertSubject(a.subjectKind(), a.subjectId())).setPatternId(a.type().name().toLowerCase())
                .setPatternVersion(1).setSummary(a.type() + " on " + a.subjectId())
                .setMatchedEventIds(a.eventIds()).setAttributes(new HashMap<>(attributes))
                .setWindowStart(a.windowStart()).setWindowEnd(a.windowEnd()).setStatus(status).build();
    }

    private TestAlerts() {
    }
}
