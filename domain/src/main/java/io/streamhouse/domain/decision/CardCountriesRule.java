package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.util.Map;
import java.util.Optional;

/**
 * Fires when a card has paid merchants in {@code maxCountries} or more countries within {@code window}: counting
 * only payments where the card was present ({@code presentOnly}, the card cannot be in three countries in an hour)
 * or all of them (online merchants' countries say little about where the card is).
 */
public record CardCountriesRule(String id, int version, DecisionOutcome outcome, FeatureWindow window, int maxCountries,
                                boolean presentOnly) implements Rule {

    public static final String KIND = "card-countries";

    @Override
    public Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features) {
        int countries = (presentOnly ? features.card().distinctPresentCountries() : features.card().distinctCountries()).get(window);
        if (countries < maxCountries) {
            return Optional.empty();
        }
        return Optional.of(new RuleHit(id, version, outcome,
                "card used " + (presentOnly ? "in person " : "") + "with merchants in " + countries + " countries within "
                        + window.label() + " (limit " + maxCountries + ")",
                Map.of("countries", Integer.toString(countries), "window", window.label(), "presentOnly", Boolean.toString(presentOnly),
                        "maxCountries", Integer.toString(maxCountries),
                        "transactions", features.card().reportedTransactions(window))));
    }
}
