package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Fires when the paying customer's address or e-mail changed within {@code within} before the payment and the
 * payment reaches {@code threshold}: the classic account-takeover sequence.
 */
public record RecentProfileChangeRule(String id, int version, DecisionOutcome outcome, Duration within,
                                      BigDecimal threshold, String currency) implements Rule {

    public static final String KIND = "recent-profile-change";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        Instant at = request.getEnvelope().getOccurredAt();
        var amount = request.getAmount();
        if (!amount.getCurrency().equals(currency) || amount.getAmount().compareTo(threshold) < 0) {
            return Optional.empty();
        }
        return features.customer().flatMap(p -> {
            // The latest change at or before the payment, not the latest known: a change dated after the payment
            // (the payment arrived late, or a rebuild knows the whole log) must not hide one dated before it.
            Instant addressChangedAt = CustomerProfiles.addressChangedAtOrBefore(p, at);
            Instant emailChangedAt = CustomerProfiles.emailChangedAtOrBefore(p, at);
            boolean address = Durations.within(addressChangedAt, at, within);
            boolean email = Durations.within(emailChangedAt, at, within);
            if (!address && !email) {
                return Optional.empty();
            }
            Map<String, String> facts = new LinkedHashMap<>();
            facts.put("customerId", p.getCustomerId());
            if (address) {
                facts.put("addressChangedAt", addressChangedAt.toString());
            }
            if (email) {
                facts.put("emailChangedAt", emailChangedAt.toString());
            }
            facts.put("within", Durations.text(within));
            facts.put("amount", amount.getAmount().toPlainString());
            facts.put("threshold", threshold.toPlainString());
            String what = address && email ? "address and e-mail" : address ? "address" : "e-mail";
            return Optional.of(new RuleHit(id, version, outcome,
                    "the customer's " + what + " changed within " + Durations.text(within) + " before a payment of "
                            + amount.getAmount().stripTrailingZeros().toPlainString() + " " + currency, facts));
        });
    }
}
