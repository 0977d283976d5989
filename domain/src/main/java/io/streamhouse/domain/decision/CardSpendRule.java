package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;

/**
 * Fires when a card's spend in {@code currency} within {@code window}, this payment included, reaches
 * {@code threshold}. Only payments in that currency count (no FX conversion on the log yet).
 */
public record CardSpendRule(String id, int version, DecisionOutcome outcome, FeatureWindow window, BigDecimal threshold,
                            String currency) implements Rule {

    public static final String KIND = "card-spend";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        if (!request.getAmount().getCurrency().equals(currency)) {
            return Optional.empty();
        }
        BigDecimal spend = features.card().spend().get(window);
        if (spend.compareTo(threshold) < 0) {
            return Optional.empty();
        }
        return Optional.of(new RuleHit(id, version, outcome,
                "card spent " + spend.stripTrailingZeros().toPlainString() + " " + currency + " within " + window.label()
                        + ", at or above " + threshold.toPlainString(),
                Map.of("spend", spend.toPlainString(), "currency", currency, "window", window.label(),
                        "threshold", threshold.toPlainString(),
                        "transactions", features.card().reportedTransactions(window))));
    }
}
