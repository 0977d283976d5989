package io.streamhouse.projections.serving;

import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.domain.state.RuleHistory;
import io.streamhouse.domain.state.RuleVersionEntry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pure fold of a rule's history from its audit events: which events describe a written version, what each says,
 * and how a version joins the history. The detail names are the contract with the api, which writes them into a
 * {@code RULE_CHANGED} event ({@code RuleAuditDetails}); every value arrives as text, already redacted and perhaps cut.
 */
public final class RuleHistories {
    public static final String VERSION = "version";
    public static final String KIND = "kind";
    public static final String ENABLED = "enabled";
    public static final String OUTCOME = "outcome";
    public static final String WEIGHT = "weight";
    public static final String DESCRIPTION = "description";
    public static final String PARAMETER_PREFIX = "parameter.";
    /** Comma-separated names of the details the audit trail holds cut to its length cap. */
    public static final String TRUNCATED = "truncated";

    /**
     * Whether the event records a written rule version: a successful {@code RULE_CHANGED} of a rule whose details
     * carry the version (events written before the details did are not history: they cannot say what was written).
     */
    public static boolean isWrittenVersion(AuditEvent event) {
        return event.getAction() == AuditAction.RULE_CHANGED && event.getOutcome() == AuditOutcome.SUCCESS
                && "rule".equals(event.getResourceType()) && event.getDetails().containsKey(VERSION);
    }

    /** The version the event records; throws on a detail that does not parse (the event is then dead-lettered). */
    public static RuleVersionEntry entryOf(AuditEvent event) {
        Map<String, String> d = event.getDetails();
        Map<String, String> parameters = new TreeMap<>();
        d.forEach((k, v) -> {
            if (k.startsWith(PARAMETER_PREFIX)) {
                parameters.put(k.substring(PARAMETER_PREFIX.length()), v);
            }
        });
        String truncated = d.get(TRUNCATED);
        return RuleVersionEntry.newBuilder()
                .setVersion(Integer.parseInt(d.get(VERSION)))
                .setKind(d.get(KIND))
                .setEnabled(d.containsKey(ENABLED) ? Boolean.parseBoolean(d.get(ENABLED)) : null)
                .setOutcome(d.get(OUTCOME))
                .setWeight(d.containsKey(WEIGHT) ? Double.parseDouble(d.get(WEIGHT)) : null)
                .setDescription(d.get(DESCRIPTION))
                .setParameters(parameters)
                .setTruncated(truncated == null || truncated.isEmpty() ? List.of() : Arrays.asList(truncated.split(",")))
                .setChangedBy(event.getSubject())
                .setChangedByRoles(List.copyOf(event.getRoles()))
                .setChangedAt(event.getEnvelope().getOccurredAt())
                .setChannel(event.getChannel())
                .setAuditEventId(event.getEnvelope().getEventId())
                .build();
    }

    /**
     * The history with the event's version in it, newest version first, whatever order the events arrive in. A
     * version already held stays as first recorded (the earlier change, by time; two instances bootstrapping at once
     * both write the same version 1): the same history object is returned when nothing changes.
     */
    public static RuleHistory fold(RuleHistory previous, String ruleId, AuditEvent event) {
        RuleVersionEntry entry = entryOf(event);
        List<RuleVersionEntry> versions = new ArrayList<>(previous == null ? List.of() : previous.getVersions());
        for (int i = 0; i < versions.size(); i++) {
            RuleVersionEntry held = versions.get(i);
            if (held.getVersion() == entry.getVersion()) {
                if (!entry.getChangedAt().isBefore(held.getChangedAt())) {
                    return previous;
                }
                versions.set(i, entry);
                return new RuleHistory(ruleId, versions);
            }
        }
        versions.add(entry);
        versions.sort(Comparator.comparingInt(RuleVersionEntry::getVersion).reversed());
        return new RuleHistory(ruleId, versions);
    }

    private RuleHistories() {
    }
}
