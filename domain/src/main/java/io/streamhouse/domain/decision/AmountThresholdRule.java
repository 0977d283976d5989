package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;

/**
 * Fires when a single payment reaches {@code threshold} in {@code currency}. Payments in another currency are not
 * converted (no FX rates on the log yet) and so never fire this rule: define one rule per currency you care about.
 */
public record AmountThresholdRule(String id, int version, DecisionOutcome outcome, BigDecimal threshold, String currency)
        implements Rule {

    public static final String KIND = "amount-threshold";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        var amount = request.getAmount();
        if (!amount.getCurrency().equals(currency) || amount.getAmount().compareTo(threshold) < 0) {
            return Optional.empty();
        }
        return Optional.of(new RuleHit(id, version, outcome,
                "amount " + amount.getAmount().stripTrailingZeros().toPlainString() + " " + currency
                        + " is at or above " + threshold.toPlainString(),
                Map.of("amount", amount.getAmount().toPlainString(), "currency", currency,
                        "threshold", threshold.toPlainString())));
    }
}
