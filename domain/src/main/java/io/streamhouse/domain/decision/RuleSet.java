package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rules in force and the version of that set. The version is the sum of the enabled and disabled rules'
 * versions: it grows with every published rule version, is the same wherever the same definitions were applied
 * (live or on replay), and needs no counter outside the log.
 */
public record RuleSet(long version, List<Rule> rules) {

    public RuleSet {
        rules = List.copyOf(rules);
    }

    /**
     * The version of a set of rules: the sum of the latest version of each decision rule, enabled or not (the CEP
     * job's {@code cep-*} pattern thresholds share the topic but are not decision rules).
     */
    public static long versionOf(java.util.Collection<RuleDefinition> latestDefinitions) {
        return latestDefinitions.stream()
                .filter(d -> !io.streamhouse.domain.detection.PatternSettings.isPatternKind(d.getKind()))
                .mapToLong(RuleDefinition::getVersion).sum();
    }

    public static RuleSet of(Iterable<RuleDefinition> definitions) {
        Map<String, RuleDefinition> latest = new LinkedHashMap<>();
        for (RuleDefinition d : definitions) {
            if (io.streamhouse.domain.detection.PatternSettings.isPatternKind(d.getKind())) {
                continue; // the CEP job's thresholds, not decision rules
            }
            latest.merge(d.getRuleId(), d, (a, b) -> b.getVersion() >= a.getVersion() ? b : a);
        }
        List<Rule> rules = new ArrayList<>();
        for (RuleDefinition d : latest.values().stream().sorted(Comparator.comparing(RuleDefinition::getRuleId)).toList()) {
            if (d.getEnabled()) {
                rules.add(Rules.fromDefinition(d));
            }
        }
        return new RuleSet(versionOf(latest.values()), rules);
    }

    public Decision decide(TransactionAuthorizationRequested request, Features features) {
        List<RuleHit> hits = new ArrayList<>();
        for (Rule rule : rules) {
            Optional<RuleHit> hit = rule.evaluate(request, features);
            hit.ifPresent(hits::add);
        }
        return Decision.of(hits, version);
    }
}
