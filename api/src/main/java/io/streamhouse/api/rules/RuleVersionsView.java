package io.streamhouse.api.rules;

import io.streamhouse.api.serving.Freshness;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.RuleHistory;
import io.streamhouse.domain.state.RuleVersionEntry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The answer of {@code GET /v1/rules/{ruleId}/versions}: every version the audit trail records for the rule, newest
 * first, and the version in force on this instance. The version in force is listed even when the trail does not hold
 * it (published before rule changes carried their definition), then with {@code inAuditTrail: false} and no author.
 *
 * @param inForce   the version this instance decides with now (null: the rule is not in force here)
 * @param freshness how far the history has read the audit trail (null when no store answered for the rule)
 */
public record RuleVersionsView(String ruleId, Integer inForce, List<Version> versions, Freshness freshness) {

    /**
     * One version.
     *
     * @param truncated    names of the fields the audit trail holds cut to its length cap ({@code description},
     *                     {@code parameter.<name>}): their text here is a prefix, not the whole
     * @param inAuditTrail false for the version in force that no audit event records: {@code changedBy},
     *                     {@code changedByRoles} and {@code channel} are then null and {@code changedAt} is when the
     *                     definition says it was published
     */
    public record Version(int version, boolean inForce, String kind, Boolean enabled, String outcome, Double weight,
                          Map<String, String> parameters, String description, List<String> truncated,
                          boolean inAuditTrail, String changedBy, List<String> changedByRoles, Instant changedAt,
                          String channel) {
    }

    /** @param history null when the trail holds no version of the rule */
    public static RuleVersionsView of(String ruleId, RuleDefinition inForce, RuleHistory history, Freshness freshness) {
        Integer current = inForce == null ? null : inForce.getVersion();
        List<Version> versions = new ArrayList<>();
        boolean currentListed = false;
        for (RuleVersionEntry e : history == null ? List.<RuleVersionEntry>of() : history.getVersions()) {
            boolean isCurrent = current != null && current == e.getVersion();
            currentListed |= isCurrent;
            versions.add(new Version(e.getVersion(), isCurrent, e.getKind(), e.getEnabled(), e.getOutcome(), e.getWeight(),
                    new TreeMap<>(e.getParameters()), e.getDescription(), List.copyOf(e.getTruncated()), true,
                    e.getChangedBy(), List.copyOf(e.getChangedByRoles()), e.getChangedAt(), e.getChannel()));
        }
        if (inForce != null && !currentListed) {
            versions.add(new Version(inForce.getVersion(), true, inForce.getKind(), inForce.getEnabled(),
                    inForce.getOutcome().name(), inForce.getWeight(), new TreeMap<>(inForce.getParameters()),
                    inForce.getDescription(), List.of(), false, null, null, inForce.getEnvelope().getOccurredAt(), null));
        }
        versions.sort(Comparator.comparingInt(Version::version).reversed());
        return new RuleVersionsView(ruleId, current, List.copyOf(versions), freshness);
    }
}
