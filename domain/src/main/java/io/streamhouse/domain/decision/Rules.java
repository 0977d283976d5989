package io.streamhouse.domain.decision;

import static io.streamhouse.domain.decision.RuleParameters.positiveDecimal;
import static io.streamhouse.domain.decision.RuleParameters.positiveDuration;
import static io.streamhouse.domain.decision.RuleParameters.positiveInt;
import static io.streamhouse.domain.decision.RuleParameters.required;

import io.streamhouse.domain.event.RuleDefinition;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Turns a {@link RuleDefinition} (data on the rules topic) into a {@link Rule}, refusing bad ones by field name. */
public final class Rules {
    private static final Pattern MCC = Pattern.compile("\\d{4}");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final Pattern RULE_ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    /** Every rule kind a definition may name. */
    public static final java.util.List<String> KINDS = java.util.List.of(AmountThresholdRule.KIND, MerchantCategoryRule.KIND,
            CardVelocityRule.KIND, CardSpendRule.KIND, CardCountriesRule.KIND, NewAccountRule.KIND,
            RecentProfileChangeRule.KIND, FlaggedSubjectRule.KIND);

    public static Rule fromDefinition(RuleDefinition definition) {
        validateCommon(definition);
        Map<String, String> p = definition.getParameters();
        return switch (definition.getKind()) {
            case AmountThresholdRule.KIND -> new AmountThresholdRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), positiveDecimal(p, "threshold"), currency(p, "currency"));
            case MerchantCategoryRule.KIND -> new MerchantCategoryRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), mccList(p, "mccs"));
            case CardVelocityRule.KIND -> new CardVelocityRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), window(p, "window"), positiveInt(p, "maxCount"));
            case CardSpendRule.KIND -> new CardSpendRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), window(p, "window"), positiveDecimal(p, "threshold"), currency(p, "currency"));
            case CardCountriesRule.KIND -> new CardCountriesRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), window(p, "window"), positiveInt(p, "maxCountries"), scope(p, "scope"));
            case NewAccountRule.KIND -> new NewAccountRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), positiveDuration(p, "maxAge"), positiveDecimal(p, "threshold"), currency(p, "currency"));
            case RecentProfileChangeRule.KIND -> new RecentProfileChangeRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), positiveDuration(p, "within"), positiveDecimal(p, "threshold"), currency(p, "currency"));
            case FlaggedSubjectRule.KIND -> new FlaggedSubjectRule(definition.getRuleId(), definition.getVersion(),
                    definition.getOutcome(), positiveDuration(p, "within"));
            default -> throw new InvalidRuleException("kind", "unknown rule kind '" + definition.getKind() + "'; known: "
                    + String.join(", ", KINDS));
        };
    }

    /** Checks a definition without building it; throws {@link InvalidRuleException} naming the first bad field. */
    public static void validate(RuleDefinition definition) {
        if (io.streamhouse.domain.detection.PatternSettings.isPatternKind(definition.getKind())) {
            io.streamhouse.domain.detection.PatternSettings.validate(definition); // the CEP job's thresholds
            return;
        }
        fromDefinition(definition);
    }

    private static void validateCommon(RuleDefinition d) {
        if (d.getRuleId() == null || !RULE_ID.matcher(d.getRuleId()).matches()) {
            throw new InvalidRuleException("ruleId", "must be 1-64 lower-case letters, digits or '-', was '" + d.getRuleId() + "'");
        }
        if (d.getVersion() < 1) {
            throw new InvalidRuleException("version", "must be at least 1, was " + d.getVersion());
        }
        if (d.getOutcome() == null) {
            throw new InvalidRuleException("outcome", "is required (ALLOW, REVIEW or BLOCK)");
        }
        if (Double.isNaN(d.getWeight()) || d.getWeight() < 0) {
            throw new InvalidRuleException("weight", "must be zero or positive, was " + d.getWeight());
        }
    }

    /** {@code card-present} (default) or {@code all}. */
    private static boolean scope(Map<String, String> p, String name) {
        String raw = p.getOrDefault(name, "card-present").trim();
        return switch (raw) {
            case "card-present" -> true;
            case "all" -> false;
            default -> throw new InvalidRuleException("parameters." + name, "must be card-present or all, was '" + raw + "'");
        };
    }

    private static FeatureWindow window(Map<String, String> p, String name) {
        try {
            return FeatureWindow.parse(required(p, name));
        } catch (IllegalArgumentException e) {
            if (e instanceof InvalidRuleException invalid) {
                throw invalid;
            }
            throw new InvalidRuleException("parameters." + name, e.getMessage());
        }
    }

    private static String currency(Map<String, String> p, String name) {
        String raw = required(p, name);
        if (!CURRENCY.matcher(raw).matches()) {
            throw new InvalidRuleException("parameters." + name, "must be an ISO 4217 code like EUR, was '" + raw + "'");
        }
        return raw;
    }

    private static Set<String> mccList(Map<String, String> p, String name) {
        Set<String> codes = Arrays.stream(required(p, name).split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
        for (String code : codes) {
            if (!MCC.matcher(code).matches()) {
                throw new InvalidRuleException("parameters." + name, "'" + code + "' is not a four-digit merchant category code");
            }
        }
        if (codes.isEmpty()) {
            throw new InvalidRuleException("parameters." + name, "must list at least one merchant category code");
        }
        return codes;
    }

    private Rules() {
    }
}
