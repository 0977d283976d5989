package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Fires when a fraud alert (from the CEP job: card testing, impossible travel, account takeover) on the card or on
 * the customer ended within {@code within} before the payment. The card's alert is checked first.
 */
public record FlaggedSubjectRule(String id, int version, DecisionOutcome outcome, Duration within) implements Rule {

    public static final String KIND = "flagged-subject";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        Instant at = request.getEnvelope().getOccurredAt();
        for (Alert alert : new Alert[]{features.cardAlert(), features.customerAlert()}) {
            if (alert != null && alert.getCategory() == AlertCategory.FRAUD && Durations.within(alert.getWindowEnd(), at, within)) {
                return Optional.of(new RuleHit(id, version, outcome,
                        alert.getSubject().getKind() + " " + alert.getSubject().getId() + " has a " + alert.getType()
                                + " alert from " + alert.getWindowEnd() + ": " + alert.getSummary(),
                        Map.of("alertId", alert.getAlertId(), "alertType", alert.getType().name(), "patternId", alert.getPatternId(),
                                "subject", alert.getSubject().getId(), "alertAt", alert.getWindowEnd().toString(),
                                "within", Durations.text(within), "transactions", String.join(",", alert.getMatchedEventIds()))));
            }
        }
        return Optional.empty();
    }
}
