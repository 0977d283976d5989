package io.streamhouse.projections.serving;

import io.streamhouse.domain.state.AlertEntry;
import io.streamhouse.domain.state.CustomerDecisionEntry;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelTracking;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Judgements the query side adds to a projection's state, as pure functions of the state, the alerts about the
 * subject and a reference instant (the {@code asOf} instant, or the api's clock for "now": the only place a wall clock
 * enters). No alert-resolution event exists yet, so every retained alert counts as open.
 */
public final class Assessments {
    /** A parcel this close to its promise, not delivered, is at risk. */
    public static final Duration SLA_AT_RISK_WINDOW = Duration.ofHours(1);

    public enum SlaRisk { NONE_PROMISED, ON_TRACK, AT_RISK, BREACHED, DELIVERED_ON_TIME, DELIVERED_LATE }

    public enum RiskLevel { LOW, MEDIUM, HIGH }

    public record Risk(RiskLevel level, List<String> reasons) {
        public Risk {
            Objects.requireNonNull(level, "level");
            reasons = List.copyOf(reasons);
        }
    }

    public static SlaRisk slaRisk(ParcelTracking parcel, List<AlertEntry> alerts, Instant reference) {
        Instant promised = parcel.getPromisedBy();
        boolean breachAlert = alerts.stream().anyMatch(a -> "PARCEL_SLA_BREACH".equals(a.getType()));
        if (parcel.getDeliveredAt() != null) {
            return promised != null && parcel.getDeliveredAt().isAfter(promised) ? SlaRisk.DELIVERED_LATE : SlaRisk.DELIVERED_ON_TIME;
        }
        if (breachAlert || (promised != null && reference.isAfter(promised))) {
            return SlaRisk.BREACHED;
        }
        if (promised == null) {
            return SlaRisk.NONE_PROMISED;
        }
        return reference.plus(SLA_AT_RISK_WINDOW).isAfter(promised) ? SlaRisk.AT_RISK : SlaRisk.ON_TRACK;
    }

    /**
     * HIGH: a HIGH or CRITICAL alert on the customer or one of their cards, or a BLOCK among the recent decisions;
     * MEDIUM: any other alert or a REVIEW; LOW otherwise. Every finding is listed as a reason.
     */
    public static Risk customerRisk(CustomerState customer, List<AlertEntry> alerts) {
        List<String> reasons = new ArrayList<>();
        RiskLevel level = RiskLevel.LOW;
        for (AlertEntry a : alerts) {
            boolean severe = "HIGH".equals(a.getSeverity()) || "CRITICAL".equals(a.getSeverity());
            level = max(level, severe ? RiskLevel.HIGH : RiskLevel.MEDIUM);
            reasons.add(a.getSeverity() + " alert " + a.getType() + " (" + a.getAlertId() + ")");
        }
        for (CustomerDecisionEntry d : customer.getDecisions()) {
            if ("BLOCK".equals(d.getOutcome())) {
                level = max(level, RiskLevel.HIGH);
                reasons.add("payment " + d.getTransactionId() + " blocked");
            } else if ("REVIEW".equals(d.getOutcome())) {
                level = max(level, RiskLevel.MEDIUM);
                reasons.add("payment " + d.getTransactionId() + " sent to review");
            }
        }
        return new Risk(level, reasons);
    }

    private static RiskLevel max(RiskLevel a, RiskLevel b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private Assessments() {
    }
}
