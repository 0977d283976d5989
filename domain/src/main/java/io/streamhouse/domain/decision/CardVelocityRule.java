package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.util.Map;
import java.util.Optional;

/** Fires when a card has made {@code maxCount} or more payments within {@code window}, this one included. */
public record CardVelocityRule(String id, int version, DecisionOutcome outcome, FeatureWindow window, int maxCount)
        implements Rule {

    public static final String KIND = "card-velocity";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        int count = features.card().count().get(window);
        if (count < maxCount) {
            return Optional.empty();
        }
        return Optional.of(new RuleHit(id, version, outcome,
                count + " payments on this card within " + window.label() + " (limit " + maxCount + ")",
                Map.of("count", Integer.toString(count), "window", window.label(), "maxCount", Integer.toString(maxCount),
                        "transactions", features.card().reportedTransactions(window))));
    }
}
