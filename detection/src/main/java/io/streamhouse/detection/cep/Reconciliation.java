package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.CepFact;
import org.apache.flink.util.Collector;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns one evaluation's findings into alerts against the alerts reported before, so that the alerts in effect (not
 * superseded, not withdrawn) are the findings whatever order the facts arrived in: the step late events are reconciled with
 * after the CEP operators ({@link LateReconciler}). What was reported rides on the anchor facts ({@code reportedAlertId},
 * {@code reportedEventIds}).
 */
final class Reconciliation {

    /** An alert reported earlier whose anchor is among the evaluated facts, with its matched events. */
    private record Reported(CepFact anchor, String alertId, List<String> eventIds, boolean seenWhole) {
        boolean shares(Finding f) {
            for (String id : f.eventIds()) {
                if (eventIds.contains(id)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Turns the findings of one evaluation into alerts, against the alerts reported before with the evaluated facts as
     * anchors, so that the alerts in effect (not superseded, not withdrawn) are the findings, whatever order the facts
     * arrived in. An occurrence is identified by its events, not by its first event: a late event may join a reported
     * occurrence before its first event (a rising run whose first readings arrive last) or split it.
     * <ol>
     *   <li>A finding whose alert was already reported (its id, or a re-issue with its events) is unchanged: nothing
     *       is emitted.</li>
     *   <li>Otherwise it supersedes the earliest (by anchor) reported alert not yet taken that shares an event with it
     *       and whose events are all among the evaluated facts; a reported alert written before state v4 (events not
     *       kept) only by a finding with its anchor, as before. With none, it is a new alert.</li>
     *   <li>A reported alert that no finding took, whose events are all among the evaluated facts and none before the
     *       trusted history ({@code trustFrom}), is withdrawn (a revision with status WITHDRAWN that supersedes it):
     *       a late event showed it false. Not in the first evaluation after a change of thresholds: an alert stays what
     *       the version that decided found, and is forgotten (no longer revised).</li>
     * </ol>
     * An alert whose events are not all evaluated here (the older ones dropped by the retention) is left as it is. A finding starting before {@code trustFrom} takes the alerts it shares events with but is not reported.
     * {@code written} are the ids this step wrote before and retired since: a finding whose alert id is among them is
     * written under {@link Alerts#reissuedIdOf} instead (an alert id is written once), and a finding is the alert
     * reported before with the same events whatever its id, so a re-issued alert is not revised again.
     */
    static void reconcile(SubjectPattern<?> pattern, String key, List<CepFact> evaluated, List<Finding> found,
                          long trustFrom, boolean sameSettings, PatternSettings s, Set<CepFact> reported,
                          Set<String> written, Collector<Alert> out, Unalertable deadLetters) {
        Map<String, CepFact> byId = new HashMap<>();
        for (CepFact f : evaluated) {
            byId.put(f.getEventId(), f);
        }
        List<Reported> before = new ArrayList<>();
        for (CepFact f : evaluated) {
            if (f.getReportedAlertId() != null) {
                List<String> ids = f.getReportedEventIds();
                before.add(ids == null
                        ? new Reported(f, f.getReportedAlertId(), List.of(f.getEventId()), false)
                        : new Reported(f, f.getReportedAlertId(), ids, byId.keySet().containsAll(ids)));
            }
        }
        if (found.isEmpty() && before.isEmpty()) {
            return;
        }
        Set<Reported> taken = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Finding> open = new ArrayList<>();
        for (Finding f : found) {
            String alertId = Alerts.alertIdOf(f);
            Set<String> events = new java.util.HashSet<>(f.eventIds());
            Reported same = before.stream().filter(r -> r.alertId().equals(alertId)
                    || (r.seenWhole() && new java.util.HashSet<>(r.eventIds()).equals(events))).findFirst().orElse(null);
            if (same != null) {
                taken.add(same);
            } else {
                open.add(f);
            }
        }
        List<Map.Entry<Finding, Reported>> revisions = new ArrayList<>();
        for (Finding f : open) {
            Reported revised = null;
            for (Reported r : before) {
                if (!taken.contains(r) && (r.seenWhole() ? r.shares(f) : r.anchor().getEventId().equals(f.anchorEventId()))) {
                    revised = r;
                    break;
                }
            }
            if (revised != null) {
                taken.add(revised);
            }
            if (f.windowStart().toEpochMilli() >= trustFrom) {
                revisions.add(new java.util.AbstractMap.SimpleEntry<>(f, revised));
            }
        }
        for (Reported r : before) {
            if (taken.contains(r) || !r.seenWhole()) {
                continue;
            }
            if (!sameSettings) {
                forget(r.anchor(), reported); // found under other thresholds: it stays, and is no longer revised
                continue;
            }
            long start = Long.MAX_VALUE, end = Long.MIN_VALUE;
            for (String id : r.eventIds()) {
                long at = byId.get(id).getOccurredAtMs();
                start = Math.min(start, at);
                end = Math.max(end, at);
            }
            if (start < trustFrom) {
                continue;
            }
            out.collect(Alerts.withdrawal(r.alertId(), pattern.kind(), pattern.version(s), key, r.eventIds(),
                    Instant.ofEpochMilli(start), Instant.ofEpochMilli(end)));
            forget(r.anchor(), reported);
        }
        List<Map.Entry<Finding, Alert>> emitted = new ArrayList<>();
        for (Map.Entry<Finding, Reported> revision : revisions) {
            Finding f = revision.getKey();
            Reported revised = revision.getValue();
            try {
                String supersedes = revised == null ? null : revised.alertId();
                emitted.add(new java.util.AbstractMap.SimpleEntry<>(f, written.contains(Alerts.alertIdOf(f))
                        ? Alerts.reissue(f, pattern.kind().ruleId(), pattern.version(s), supersedes)
                        : Alerts.of(f, pattern.kind().ruleId(), pattern.version(s), supersedes)));
            } catch (RuntimeException e) {
                deadLetters.accept(evaluated, f, e);
                continue;
            }
            if (revised != null) {
                forget(revised.anchor(), reported);
            }
        }
        // Forgotten first, then recorded: a revision's anchor may be the anchor of another revised alert.
        for (Map.Entry<Finding, Alert> e : emitted) {
            out.collect(e.getValue());
            CepFact anchor = byId.get(e.getKey().anchorEventId());
            anchor.setReportedAlertId(e.getValue().getAlertId());
            anchor.setReportedEventIds(new ArrayList<>(e.getKey().eventIds()));
            reported.add(anchor);
        }
    }

    /** Where {@link #reconcile} sends a finding whose alert cannot be built. */
    @FunctionalInterface
    interface Unalertable {
        void accept(List<CepFact> facts, Finding finding, RuntimeException e);
    }

    private static void forget(CepFact anchor, Set<CepFact> reported) {
        anchor.setReportedAlertId(null);
        anchor.setReportedEventIds(null);
        reported.add(anchor);
    }

    private Reconciliation() {
    }
}
