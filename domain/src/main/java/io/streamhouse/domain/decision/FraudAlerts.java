package io.streamhouse.domain.decision;

import io.streamhouse.domain.detection.AlertsInEffect;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.state.FraudAlertHistory;
import io.streamhouse.domain.state.HeldAlert;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the decider knows of one subject's fraud alerts, and which of them applies to a payment.
 * <p>The CEP job writes an alert about a card only after the payments it is about, so whether a payment saw an alert
 * depends on when the payment was decided, not only on the log. The decider therefore holds each subject's recent
 * records of {@code alerts.fraud} with their offsets ({@link #hold}), records on each decision how far it had read
 * them ({@link #newestOffset}), and a rebuild decides with the records up to those offsets: it sees what live saw.
 * All of a subject's records are on one partition (the topic is keyed by subject), so "up to an offset" is a prefix.
 */
public final class FraudAlerts {
    /** Records held per subject: the newest, by offset. */
    public static final int HELD = 64;
    /** An offset meaning "no record". */
    public static final long NONE = -1;

    /**
     * The history with the record at {@code offset} added as its newest; the same instance when that offset is already
     * held or older than the newest held (a global store is restored by reading its topic again through its processor).
     */
    public static FraudAlertHistory hold(FraudAlertHistory before, String subjectId, long offset, ByteBuffer alert) {
        if (before != null && newestOffset(before, Long.MAX_VALUE) >= offset) {
            return before;
        }
        List<HeldAlert> alerts = new ArrayList<>(before == null ? List.of() : before.getAlerts());
        alerts.add(new HeldAlert(offset, alert));
        if (alerts.size() > HELD) {
            alerts = new ArrayList<>(alerts.subList(alerts.size() - HELD, alerts.size()));
        }
        return new FraudAlertHistory(subjectId, alerts);
    }

    /** The offset of the newest record held at or below {@code limit}; {@link #NONE} if there is none. */
    public static long newestOffset(FraudAlertHistory history, long limit) {
        long newest = NONE;
        if (history != null) {
            for (HeldAlert held : history.getAlerts()) {
                if (held.getOffset() <= limit) {
                    newest = Math.max(newest, held.getOffset());
                }
            }
        }
        return newest;
    }

    /** The records held at or below {@code limit}, in log order. */
    public static List<HeldAlert> upTo(FraudAlertHistory history, long limit) {
        if (history == null) {
            return List.of();
        }
        return history.getAlerts().stream().filter(h -> h.getOffset() <= limit).toList();
    }

    /**
     * The alert that applies to a payment at {@code at}, given a subject's alert records in log order: of the alerts
     * in effect (a revision replaces the alert it supersedes, a withdrawal removes it: {@link AlertsInEffect}), the
     * fraud alert with the latest window end at or before {@code at}, the later record on a tie; null if none. An alert
     * that ends after the payment is not about it, and does not hide an earlier one that is.
     */
    public static Alert applying(List<Alert> inLogOrder, Instant at) {
        Alert chosen = null;
        for (Alert alert : AlertsInEffect.of(inLogOrder).inEffect()) {
            if (alert.getCategory() == AlertCategory.FRAUD && !alert.getWindowEnd().isAfter(at)
                    && (chosen == null || !alert.getWindowEnd().isBefore(chosen.getWindowEnd()))) {
                chosen = alert;
            }
        }
        return chosen;
    }

    private FraudAlerts() {
    }
}
