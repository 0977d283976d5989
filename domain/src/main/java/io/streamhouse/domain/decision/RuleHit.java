package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;

import java.util.Map;
import java.util.Objects;

/** A rule that fired: which rule, which version, what it asks for and the values that made it fire. */
public record RuleHit(String ruleId, int ruleVersion, DecisionOutcome outcome, String message, Map<String, String> facts) {
    public RuleHit {
        Objects.requireNonNull(ruleId, "ruleId");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(message, "message");
        if (ruleVersion < 1) {
            throw new IllegalArgumentException("ruleVersion must be at least 1");
        }
        facts = Map.copyOf(facts);
    }
}
