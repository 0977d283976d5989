package io.streamhouse.domain.detection;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertStatus;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The alerts a reader of the alert topics ends with: every alert that no later one supersedes (attribute
 * {@value #SUPERSEDES}, how the CEP job revises an alert when a late event changed the occurrence) and that is not a
 * withdrawal (status WITHDRAWN, which supersedes an alert a late event showed false: both go). An alert id read twice
 * counts once (the last copy): a reader keys alerts by id.
 *
 * @param inEffect    in the order first read
 * @param read        alert records read
 * @param superseded  alerts replaced by a revision or withdrawn
 * @param withdrawals withdrawal records
 * @param duplicates  records whose alert id was read before
 */
public record AlertsInEffect(List<Alert> inEffect, int read, int superseded, int withdrawals, int duplicates) {
    /** The attribute naming the alert a revision replaces (the CEP job's {@code Alerts.SUPERSEDES}). */
    public static final String SUPERSEDES = "supersedes";

    public AlertsInEffect {
        inEffect = List.copyOf(inEffect);
    }

    public static AlertsInEffect of(List<Alert> alerts) {
        Map<String, Alert> byId = new LinkedHashMap<>();
        Set<String> superseded = new HashSet<>();
        int withdrawals = 0;
        for (Alert a : alerts) {
            byId.put(a.getAlertId(), a);
            String old = a.getAttributes().get(SUPERSEDES);
            if (old != null) {
                superseded.add(old);
            }
            if (a.getStatus() == AlertStatus.WITHDRAWN) {
                withdrawals++;
            }
        }
        List<Alert> inEffect = new ArrayList<>();
        for (Alert a : byId.values()) {
            if (!superseded.contains(a.getAlertId()) && a.getStatus() != AlertStatus.WITHDRAWN) {
                inEffect.add(a);
            }
        }
        int supersededRead = (int) byId.keySet().stream().filter(superseded::contains).count();
        return new AlertsInEffect(inEffect, alerts.size(), supersededRead, withdrawals, alerts.size() - byId.size());
    }
}
