package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Fires when the paying customer registered less than {@code maxAge} before the payment and the payment reaches
 * {@code threshold} in {@code currency}. A payment without a known customer never fires it.
 */
public record NewAccountRule(String id, int version, DecisionOutcome outcome, Duration maxAge, BigDecimal threshold,
                             String currency) implements Rule {

    public static final String KIND = "new-account";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        Instant at = request.getEnvelope().getOccurredAt();
        var amount = request.getAmount();
        if (!amount.getCurrency().equals(currency) || amount.getAmount().compareTo(threshold) < 0) {
            return Optional.empty();
        }
        return features.customer()
                .filter(p -> Durations.within(p.getRegisteredAt(), at, maxAge))
                .map(p -> new RuleHit(id, version, outcome,
                        "customer " + p.getCustomerId() + " registered " + Duration.between(p.getRegisteredAt(), at)
                                + " before a payment of " + amount.getAmount().stripTrailingZeros().toPlainString() + " " + currency,
                        Map.of("customerId", p.getCustomerId(), "registeredAt", p.getRegisteredAt().toString(),
                                "maxAge", Durations.text(maxAge), "amount", amount.getAmount().toPlainString(),
                                "threshold", threshold.toPlainString())));
    }
}
