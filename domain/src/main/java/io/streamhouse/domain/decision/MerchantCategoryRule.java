package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Fires when the merchant's category code is on a list (e.g. gambling 7995, quasi-cash 6051). */
public record MerchantCategoryRule(String id, int version, DecisionOutcome outcome, Set<String> categoryCodes)
        implements Rule {

    public static final String KIND = "merchant-category";

    public MerchantCategoryRule {
        categoryCodes = Set.copyOf(categoryCodes);
    }

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        String mcc = request.getMerchant().getMcc();
        if (!categoryCodes.contains(mcc)) {
            return Optional.empty();
        }
        return Optional.of(new RuleHit(id, version, outcome,
                "merchant category " + mcc + " is on the list",
                Map.of("mcc", mcc, "merchantId", request.getMerchant().getMerchantId())));
    }
}
