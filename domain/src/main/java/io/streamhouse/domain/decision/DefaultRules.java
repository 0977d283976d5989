package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The rule definitions a fresh system starts with. They are published to the rules topic like any later version
 * (so they are data, replayable and replaceable), not hard-wired into the decider.
 */
public final class DefaultRules {
    /** Event time of the built-in definitions: fixed, so every installation and every replay sees the same events. */
    public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

    public static List<RuleDefinition> definitions() {
        return List.of(
                definition("large-amount-review", AmountThresholdRule.KIND, DecisionOutcome.REVIEW,
                        Map.of("threshold", "1000.00", "currency", "EUR"),
                        "A single payment of EUR 1,000 or more is held for review."),
                definition("very-large-amount-block", AmountThresholdRule.KIND, DecisionOutcome.BLOCK,
                        Map.of("threshold", "10000.00", "currency", "EUR"),
                        "A single payment of EUR 10,000 or more is blocked."),
                definition("high-risk-merchant-review", MerchantCategoryRule.KIND, DecisionOutcome.REVIEW,
                        Map.of("mccs", "6051,7995"),
                        "Quasi-cash (6051) and gambling (7995) merchants are held for review."),
                definition("card-velocity-1m-review", CardVelocityRule.KIND, DecisionOutcome.REVIEW,
                        Map.of("window", "1m", "maxCount", "5"),
                        "Five or more payments on one card within a minute are held for review."),
                definition("card-spend-24h-review", CardSpendRule.KIND, DecisionOutcome.REVIEW,
                        Map.of("window", "24h", "threshold", "5000.00", "currency", "EUR"),
                        "A card that has spent EUR 5,000 or more within 24 hours is held for review."),
                definition("card-countries-1h-block", 2, CardCountriesRule.KIND, DecisionOutcome.BLOCK,
                        Map.of("window", "1h", "maxCountries", "3", "scope", "card-present"),
                        "A card used in person in three or more countries within an hour is blocked. (Version 1 counted "
                                + "online merchants' countries too and held 3 % of normal payments in the scenario test.)"),
                definition("new-account-review", NewAccountRule.KIND, DecisionOutcome.REVIEW,
                        Map.of("maxAge", "P7D", "threshold", "500.00", "currency", "EUR"),
                        "A payment of EUR 500 or more from an account younger than a week is held for review."),
                definition("recent-profile-change-review", RecentProfileChangeRule.KIND, DecisionOutcome.REVIEW,
                        Map.of("within", "PT1H", "threshold", "250.00", "currency", "EUR"),
                        "A payment of EUR 250 or more within an hour of an address or e-mail change is held for review."),
                definition("flagged-subject-block", FlaggedSubjectRule.KIND, DecisionOutcome.BLOCK,
                        Map.of("within", "P1D"),
                        "A card or customer with a fraud alert in the last day is blocked."));
    }

    public static RuleSet ruleSet() {
        return RuleSet.of(definitions());
    }

    private static RuleDefinition definition(String id, String kind, DecisionOutcome outcome, Map<String, String> params,
                                             String description) {
        return definition(id, 1, kind, outcome, params, description);
    }

    private static RuleDefinition definition(String id, int version, String kind, DecisionOutcome outcome,
                                             Map<String, String> params, String description) {
        return RuleDefinition.newBuilder()
                .setEnvelope(Envelopes.create(Envelopes.derivedEventId("default-rule", id + ":" + version), id, EPOCH, EPOCH,
                        "streamhouse-defaults", EventTypes.versionOf(RuleDefinition.class), null))
                .setRuleId(id)
                .setVersion(version)
                .setKind(kind)
                .setEnabled(true)
                .setOutcome(outcome)
                .setWeight(1.0)
                .setParameters(params)
                .setDescription(description)
                .build();
    }

    private DefaultRules() {
    }
}
