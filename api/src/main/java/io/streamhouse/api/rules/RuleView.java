package io.streamhouse.api.rules;

import io.streamhouse.domain.event.RuleDefinition;

import java.util.Map;
import java.util.TreeMap;

/** A rule definition as JSON. */
public record RuleView(String ruleId, int version, String kind, boolean enabled, String outcome, double weight,
                       Map<String, String> parameters, String description) {
    public static RuleView of(RuleDefinition d) {
        return new RuleView(d.getRuleId(), d.getVersion(), d.getKind(), d.getEnabled(), d.getOutcome().name(),
                d.getWeight(), new TreeMap<>(d.getParameters()), d.getDescription());
    }
}
