package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Turns what a CEP library pattern matched into alerts: the matched facts, in event-time order, go through the
 * pattern's pure function ({@link SubjectPattern#find}) under the thresholds stamped on the fact that decided (the
 * last one), whose definition version becomes the alert's {@code patternVersion}. A match whose alert cannot be built
 * goes to the dead letters of the pattern's anchor topic. Holds no keyed state. Each alert is
 * final when emitted, but for two revisions, each superseding an alert whose id is derived from the match alone: a
 * parcel delivered after its deadline fact was matched ("never delivered", by the other parcel operator) is "delivered
 * late" ({@link ParcelDeadlines#neverDeliveredBefore}), and a growing overheating run's alert supersedes the one its
 * previous reading gave. Timed-out partial matches are not alerted (none can be a breach the deadline fact has not
 * reported).
 */
final class AlertsOfMatches extends PatternProcessFunction<StampedFact, Alert> {
    /** Matches whose alert cannot be built, for the dead letters of the topic their anchor event comes from. */
    static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("match-dead-letters") {
    };

    private static final Logger LOG = LoggerFactory.getLogger(AlertsOfMatches.class);
    private static final Comparator<StampedFact> IN_EVENT_TIME = new LibraryPatterns.ByEventId();

    private final SubjectPattern<?> pattern;
    private final String anchorTopic;
    private final LibraryPatterns.StampedSettings settings;

    AlertsOfMatches(SubjectPattern<?> pattern, String anchorTopic) {
        this.pattern = pattern;
        this.anchorTopic = anchorTopic;
        this.settings = new LibraryPatterns.StampedSettings(pattern.kind());
    }

    /**
     * The last event of the previous match. Where a pattern completes several nested matches with one event (account
     * takeover: one per change in the window before the order), the NFA gives them earliest start first, the widest
     * first, all in one call for that event; only that one is alerted.
     */
    private transient String lastDecidedBy;


    /**
     * The alert a growing overheating run's previous reading gave, which this one revises: the run without its last
     * reading, when that was long enough to be alerted (the NFA completes a match at every reading of a run).
     */
    private String runBefore(String subject, List<CepFact> run, PatternSettings s, Context ctx) {
        if (run.size() < 2) {
            return null;
        }
        List<Finding> before = pattern.find(subject, run.subList(0, run.size() - 1), s,
                Instant.ofEpochMilli(ctx.timestamp()));
        return before.size() == 1 ? Alerts.alertIdOf(before.get(0)) : null;
    }

    @Override
    public void processMatch(Map<String, List<StampedFact>> match, Context ctx, Collector<Alert> out) {
        List<StampedFact> stamped = new ArrayList<>();
        match.values().forEach(stamped::addAll);
        stamped.sort(IN_EVENT_TIME);
        StampedFact decided = stamped.get(stamped.size() - 1);
        String decidedBy = decided.getFact().getEventId();
        if (decidedBy.equals(lastDecidedBy)) {
            return;
        }
        lastDecidedBy = decidedBy;
        String subject = decided.getSubject();
        List<CepFact> facts = stamped.stream().map(StampedFact::getFact).toList();
        PatternSettings s = settings.of(decided);
        Finding current = null;
        try {
            String supersedes = switch (pattern.kind()) {
                case PARCEL_SLA -> ParcelDeadlines.neverDeliveredBefore(match).orElse(null);
                case ENGINE_OVERHEATING -> runBefore(subject, facts, s, ctx);
                default -> null;
            };
            for (Finding f : pattern.find(subject, facts, s, Instant.ofEpochMilli(ctx.timestamp()))) {
                current = f;
                out.collect(Alerts.of(f, pattern.kind().ruleId(), pattern.version(s), supersedes));
            }
        } catch (RuntimeException e) {
            List<String> ids = current != null ? current.eventIds() : facts.stream().map(CepFact::getEventId).toList();
            String reason = pattern.kind().ruleId() + ": no alert could be built for subject " + subject + ": "
                    + e.getMessage();
            LOG.warn("{}; events {} to the dead letters", reason, ids, e);
            ctx.output(DEAD_LETTERS, new DeadLetter(anchorTopic, -1, -1L,
                    subject.getBytes(StandardCharsets.UTF_8), String.join(",", ids).getBytes(StandardCharsets.UTF_8),
                    reason, e.getClass().getName(), null, "cep-" + pattern.kind().ruleId()));
        }
    }
}
