package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertStatus;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** What a reader of the alert topics ends with, and the checks that make that end well defined. */
final class AlertsInEffect {

    /**
     * The alerts in effect, by alert id: every alert not superseded (attribute {@code supersedes} of a later one) and not
     * withdrawn, without its {@code supersedes} (which depends on the order of arrival). Asserts that no alert id was
     * written twice and that no alert was superseded twice (each chain of revisions is a line).
     */
    static Map<String, Alert> of(List<Alert> alerts) {
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

    private AlertsInEffect() {
    }
}
