package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.util.Map;
import java.util.Optional;

/** Fires when a card has paid merchants in {@code maxCountries} or more countries within {@code window}. */
public record CardCountriesRule(String id, int version, DecisionOutcome outcome, FeatureWindow window, int maxCountries)
        implements Rule {

    public static final String KIND = "card-countries";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        int countries = features.card().distinctCountries().get(window);
        if (countries < maxCountries) {
            return Optional.empty();
        }
        return Optional.of(new RuleHit(id, version, outcome,
                "card used with merchants in " + countries + " countries within " + window.label() + " (limit " + maxCountries + ")",
                Map.of("countries", Integer.toString(countries), "window", window.label(),
                        "maxCountries", Integer.toString(maxCountries),
                        "transactions", features.card().reportedTransactions(window))));
    }
}
