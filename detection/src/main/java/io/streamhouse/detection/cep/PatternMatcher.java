package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.CepSubjectState;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one {@link SubjectPattern} per key (card, customer, parcel, vehicle) in event time, with thresholds from
 * broadcast state.
 *
 * <p><b>Why not Flink CEP's {@code Pattern} API.</b> A CEP pattern is compiled into an NFA when the job is built: its
 * {@code within} and the values in its conditions are fixed, and a CEP operator cannot read broadcast state, so new
 * thresholds would need a redeploy. Here the pattern is a pure function re-run over the subject's retained facts,
 * and its parameters are read from the rules broadcast at every evaluation: a new {@code cep-*} definition on
 * {@code rules.definitions} applies from the next evaluation, no restart.
 *
 * <p><b>State: one value per key.</b> Its input is facts, not events ({@link FactsOf}, before the keyed exchange): the
 * few fields of an event the pattern needs. It keeps the subject's facts ({@link SubjectPattern#keeps}), each with the
 * alert last reported with it as anchor, where history was cut, and the key's clean-up timer: a
 * {@link CepSubjectState} (Avro), read and written once per evaluation. A fact not kept touches neither state nor
 * timers.
 *
 * <p><b>Event time.</b> A fact is added when its event arrives and evaluated once, when the watermark passes its time
 * (an event-time timer), so out-of-order events within the watermark's bound are seen in event-time order. Patterns
 * about something that did not happen (a parcel not delivered) also set a timer at their deadline: the partial match
 * times out when event time passes it. At end of input (watermark at +∞) nothing times out: the stream did not show
 * that the time passed.
 *
 * <p><b>Late events (reconciliation).</b> An event behind the watermark (already recorded on {@code <topic>.late}
 * upstream) is added to the facts and the pattern re-evaluated at once. What it can still change: it can complete an
 * occurrence (a new alert) or change the events of one already reported (a new alert with attribute
 * {@code supersedes} naming the old one; occurrences are matched by their anchor event). It cannot withdraw an alert:
 * alerts are facts on the log, and a fraud flag is better kept than silently dropped. An event older than the
 * pattern's retention behind the watermark cannot change anything and is only recorded.
 *
 * <p><b>Clearing.</b> Facts older than the retention before the evaluated time are dropped at each evaluation. Each
 * key has at most one clean-up timer, at its newest fact's time plus the retention (re-armed when it fires and newer
 * facts remain); once no fact is left, the key's state and its remaining timers are deleted. A repeated event id is
 * dropped (the log is at-least-once per event id).
 */
public final class PatternMatcher extends KeyedBroadcastProcessFunction<String, Tuple2<String, CepFact>, RuleDefinition, Alert> {
    private static final Logger LOG = LoggerFactory.getLogger(PatternMatcher.class);

    /** The latest valid {@code cep-*} definition of each pattern, by rule id: the broadcast state every matcher reads. */
    public static final MapStateDescriptor<String, RuleDefinition> RULES = new MapStateDescriptor<>(
            "cep-pattern-rules", Types.STRING, new AvroTypeInfo<>(RuleDefinition.class));

    /** Name of the per-key state; the per-event {@code history}/{@code reported}/{@code dropped-before} it replaced are gone. */
    static final String STATE = "subject-facts";

    private final SubjectPattern<?> pattern;
    private transient ValueState<CepSubjectState> state;
    private transient PatternSettings settings;

    public PatternMatcher(SubjectPattern<?> pattern) {
        this.pattern = pattern;
    }

    @Override
    public void open(OpenContext openContext) {
        state = getRuntimeContext().getState(new ValueStateDescriptor<>(STATE, new AvroTypeInfo<>(CepSubjectState.class)));
    }

    @Override
    public void processElement(Tuple2<String, CepFact> subjectAndFact, ReadOnlyContext ctx, Collector<Alert> out)
            throws Exception {
        PatternSettings s = settings(ctx.getBroadcastState(RULES));
        CepFact fact = subjectAndFact.f1;
        if (!pattern.keeps(fact, s)) {
            return;
        }
        long at = fact.getOccurredAtMs();
        long watermark = ctx.timerService().currentWatermark();
        long retention = pattern.retention(s).toMillis();
        if (watermark != Long.MIN_VALUE && at < watermark - retention) {
            return; // older than anything still retained: it can no longer change an occurrence
        }
        CepSubjectState current = state.value();
        if (current == null) {
            current = CepSubjectState.newBuilder().setFacts(new ArrayList<>()).build();
        } else if (current.getDroppedBeforeMs() != null && at < current.getDroppedBeforeMs()) {
            return;
        }
        List<CepFact> facts = current.getFacts();
        for (CepFact f : facts) {
            if (f.getEventId().equals(fact.getEventId())) {
                return; // a repeated event
            }
        }
        int position = facts.size();
        while (position > 0 && ORDER.compare(facts.get(position - 1), fact) > 0) {
            position--;
        }
        facts.add(position, fact);
        pattern.deadline(fact, s).ifPresent(d -> ctx.timerService().registerEventTimeTimer(d.toEpochMilli()));
        if (current.getCleanupAtMs() == null) {
            long cleanupAt = at + retention + 1;
            ctx.timerService().registerEventTimeTimer(cleanupAt);
            current.setCleanupAtMs(cleanupAt);
        }
        if (at <= watermark) {
            evaluate(ctx.getCurrentKey(), current, watermark,
                    watermark == Long.MAX_VALUE ? null : Instant.ofEpochMilli(watermark), s, ctx.timerService(), out);
        } else {
            ctx.timerService().registerEventTimeTimer(at);
            state.update(current);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Alert> out) throws Exception {
        CepSubjectState current = state.value();
        if (current == null) {
            return;
        }
        PatternSettings s = settings(ctx.getBroadcastState(RULES));
        TimerService timers = ctx.timerService();
        boolean cleanup = current.getCleanupAtMs() != null && current.getCleanupAtMs() == timestamp;
        boolean due = false;
        for (CepFact f : current.getFacts()) {
            if (f.getOccurredAtMs() == timestamp
                    || pattern.deadline(f, s).map(d -> d.toEpochMilli() == timestamp).orElse(false)) {
                due = true;
                break;
            }
        }
        if (cleanup) {
            current.setCleanupAtMs(null);
        }
        boolean endOfInput = timers.currentWatermark() == Long.MAX_VALUE;
        if (due) {
            evaluate(ctx.getCurrentKey(), current, timestamp, endOfInput ? null : Instant.ofEpochMilli(timestamp), s,
                    timers, out);
        } else {
            prune(current, timestamp, s, timers);
        }
    }

    @Override
    public void processBroadcastElement(RuleDefinition rule, Context ctx, Collector<Alert> out) throws Exception {
        if (!PatternSettings.isPatternKind(rule.getKind())) {
            return;
        }
        BroadcastState<String, RuleDefinition> rules = ctx.getBroadcastState(RULES);
        RuleDefinition current = rules.get(rule.getRuleId());
        if (current != null && current.getVersion() > rule.getVersion()) {
            return;
        }
        try {
            PatternSettings.defaults().with(rule);
        } catch (IllegalArgumentException e) {
            LOG.warn("Ignoring pattern rule {} v{}: {}", rule.getRuleId(), rule.getVersion(), e.getMessage());
            return;
        }
        rules.put(rule.getRuleId(), rule);
        settings = null;
    }

    private PatternSettings settings(ReadOnlyBroadcastState<String, RuleDefinition> rules) throws Exception {
        if (settings == null) {
            PatternSettings s = PatternSettings.defaults();
            for (Map.Entry<String, RuleDefinition> e : rules.immutableEntries()) {
                s = s.with(e.getValue());
            }
            settings = s;
        }
        return settings;
    }

    /** Runs the pattern over the facts up to {@code horizon}, reports what changed, then prunes and stores. */
    private void evaluate(String key, CepSubjectState current, long horizon, Instant timeReached, PatternSettings s,
                          TimerService timers, Collector<Alert> out) throws Exception {
        if (pattern.enabled(s)) {
            List<CepFact> facts = current.getFacts();
            int settled = facts.size();
            while (settled > 0 && facts.get(settled - 1).getOccurredAtMs() > horizon) {
                settled--;
            }
            Long dropped = current.getDroppedBeforeMs();
            long trustFrom = dropped == null ? Long.MIN_VALUE : dropped + pattern.guard(s).toMillis();
            List<Finding> found = pattern.find(key, facts.subList(0, settled), s, timeReached);
            if (!found.isEmpty()) {
                Map<String, CepFact> byId = new HashMap<>();
                for (CepFact f : facts.subList(0, settled)) {
                    byId.put(f.getEventId(), f);
                }
                for (Finding f : found) {
                    if (f.windowStart().toEpochMilli() < trustFrom) {
                        continue;
                    }
                    String alertId = Alerts.alertIdOf(f);
                    CepFact anchor = byId.get(f.anchorEventId());
                    String before = anchor.getReportedAlertId();
                    if (!alertId.equals(before)) {
                        out.collect(Alerts.of(f, pattern.kind().ruleId(), pattern.version(s), before));
                        anchor.setReportedAlertId(alertId);
                    }
                }
            }
        }
        prune(current, horizon, s, timers);
    }

    /**
     * Drops the facts older than the retention before {@code horizon} (with their pending deadlines), and stores what
     * is left; with nothing left, clears the key's state and timers. Re-arms the clean-up timer if it has fired.
     */
    private void prune(CepSubjectState current, long horizon, PatternSettings s, TimerService timers) throws Exception {
        long cutoff = horizon == Long.MAX_VALUE ? Long.MAX_VALUE : horizon - pattern.retention(s).toMillis();
        List<CepFact> facts = current.getFacts();
        int drop = 0;
        while (drop < facts.size() && facts.get(drop).getOccurredAtMs() < cutoff) {
            drop++;
        }
        List<CepFact> kept = facts.subList(drop, facts.size());
        for (CepFact gone : facts.subList(0, drop)) {
            pattern.deadline(gone, s).map(Instant::toEpochMilli)
                    .filter(d -> d > horizon && !timerStillNeeded(d, kept, current, s))
                    .ifPresent(timers::deleteEventTimeTimer);
        }
        if (drop == facts.size()) {
            if (current.getCleanupAtMs() != null) {
                timers.deleteEventTimeTimer(current.getCleanupAtMs());
            }
            state.clear();
            return;
        }
        if (drop > 0) {
            facts.subList(0, drop).clear();
            Long dropped = current.getDroppedBeforeMs();
            current.setDroppedBeforeMs(dropped == null ? cutoff : Math.max(dropped, cutoff));
        }
        if (current.getCleanupAtMs() == null) {
            long cleanupAt = facts.get(facts.size() - 1).getOccurredAtMs() + pattern.retention(s).toMillis() + 1;
            timers.registerEventTimeTimer(cleanupAt);
            current.setCleanupAtMs(cleanupAt);
        }
        state.update(current);
    }

    /** Timers are one per key and time: another fact's evaluation, deadline or the clean-up may share this one. */
    private boolean timerStillNeeded(long timestamp, List<CepFact> kept, CepSubjectState current, PatternSettings s) {
        if (current.getCleanupAtMs() != null && current.getCleanupAtMs() == timestamp) {
            return true;
        }
        for (CepFact f : kept) {
            if (f.getOccurredAtMs() == timestamp
                    || pattern.deadline(f, s).map(d -> d.toEpochMilli() == timestamp).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    private static final Comparator<CepFact> ORDER =
            Comparator.comparingLong(CepFact::getOccurredAtMs).thenComparing(CepFact::getEventId);
}
