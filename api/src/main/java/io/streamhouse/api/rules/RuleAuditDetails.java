package io.streamhouse.api.rules;

import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.projections.serving.RuleHistories;
import io.streamhouse.security.audit.AuditTrail;
import io.streamhouse.security.audit.Redaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The details of a {@code RULE_CHANGED} audit event that wrote a definition: every field of the definition as text,
 * under the names {@link RuleHistories} folds into a rule's history. Each value passes {@link Redaction} with the
 * trail's cap ({@link AuditTrail#DETAIL_LENGTH}); the names of the values that cap cuts are listed under
 * {@link RuleHistories#TRUNCATED}, so the history never shows a cut text as whole.
 */
public final class RuleAuditDetails {

    public static Map<String, String> of(RuleDefinition d) {
        Map<String, String> details = new LinkedHashMap<>();
        List<String> cut = new ArrayList<>();
        details.put(RuleHistories.VERSION, Integer.toString(d.getVersion()));
        put(details, cut, RuleHistories.KIND, d.getKind());
        details.put(RuleHistories.ENABLED, Boolean.toString(d.getEnabled()));
        details.put(RuleHistories.OUTCOME, d.getOutcome().name());
        details.put(RuleHistories.WEIGHT, Double.toString(d.getWeight()));
        if (d.getDescription() != null) {
            put(details, cut, RuleHistories.DESCRIPTION, d.getDescription());
        }
        new TreeMap<>(d.getParameters()).forEach((name, value) ->
                put(details, cut, RuleHistories.PARAMETER_PREFIX + name, value));
        if (!cut.isEmpty()) {
            details.put(RuleHistories.TRUNCATED, String.join(",", cut));
        }
        return details;
    }

    private static void put(Map<String, String> details, List<String> cut, String name, String value) {
        if (Redaction.clean(value, Integer.MAX_VALUE).length() > AuditTrail.DETAIL_LENGTH) {
            cut.add(name);
        }
        details.put(name, value);
    }

    private RuleAuditDetails() {
    }
}
