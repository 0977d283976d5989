package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.CepSubjectState;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The matcher as it was before evaluation timers were coalesced (commit cc4646d): every fact waiting for its time has
 * its own event-time timer, and each timer evaluates the facts of its own time. Kept as the reference the coalesced
 * {@link PatternMatcher} is compared with (same alerts, in the same order, on the same inputs), and to write state the
 * way that version did, with its timers, for restore tests. Same state names and types as {@link PatternMatcher}.
 * Its alerts come from {@link Reconciliation#reconcile} (late events reconciled by shared events, with withdrawals),
 * and a deadline timer behind a horizon already evaluated evaluates at that horizon, as in {@link PatternMatcher}:
 * the reference differs from the matcher in its timers only.
 */
final class PerFactTimerMatcher extends KeyedBroadcastProcessFunction<String, Tuple2<String, CepFact>, RuleDefinition, Alert> {
    private static final Logger LOG = LoggerFactory.getLogger(PerFactTimerMatcher.class);

    /** Name of the per-key value: the tail and the pending facts, and what the key's timers and history are. */
    static final String STATE = "subject-facts";
    /** Name of the per-key map of the facts before the tail, by a sequence number in event-time order. */
    static final String SETTLED = "settled-facts";
    /** Name of the per-key map of the facts event time has not reached yet, by event time (patterns that split). */
    static final String PENDING = "pending-facts";

    private final SubjectPattern<?> pattern;
    private transient ValueState<CepSubjectState> state;
    private transient MapState<Long, CepFact> settled;
    private transient MapState<Long, List<CepFact>> pending;
    private transient PatternSettings settings;
    private transient int settingsHash;
    /** Per subject, the newest horizon evaluated (test reference only: not in its state). */
    private transient Map<String, Long> horizons;

    PerFactTimerMatcher(SubjectPattern<?> pattern) {
        this.pattern = pattern;
    }

    @Override
    public void open(OpenContext openContext) {
        horizons = new HashMap<>();
        state = getRuntimeContext().getState(new ValueStateDescriptor<>(STATE, new AvroTypeInfo<>(CepSubjectState.class)));
        settled = getRuntimeContext().getMapState(
                new MapStateDescriptor<>(SETTLED, Types.LONG, new AvroTypeInfo<>(CepFact.class)));
        pending = getRuntimeContext().getMapState(
                new MapStateDescriptor<>(PENDING, Types.LONG, Types.LIST(new AvroTypeInfo<>(CepFact.class))));
    }

    @Override
    public void processElement(Tuple2<String, CepFact> subjectAndFact, ReadOnlyContext ctx, Collector<Alert> out)
            throws Exception {
        PatternSettings s = settings(ctx.getBroadcastState(PatternMatcher.RULES));
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
        if (pattern.splitsHistory() && at > watermark) {
            // In order: it waits for its time apart; the value (the tail, a few facts) is read for the clean-up timer
            // and written only to arm it; the other waiting facts are not touched.
            CepSubjectState current = state.value();
            if (current != null && current.getDroppedBeforeMs() != null && at < current.getDroppedBeforeMs()) {
                return;
            }
            List<CepFact> sameTime = pending.get(at);
            List<CepFact> waiting = sameTime == null ? new ArrayList<>(1) : new ArrayList<>(sameTime);
            int position = waiting.size();
            for (int i = 0; i < waiting.size(); i++) {
                if (waiting.get(i).getEventId().equals(fact.getEventId())) {
                    return; // a repeated event
                }
                if (ORDER.compare(waiting.get(i), fact) > 0 && position == waiting.size()) {
                    position = i;
                }
            }
            waiting.add(position, fact);
            pending.put(at, waiting);
            ctx.timerService().registerEventTimeTimer(at);
            if (current == null || current.getCleanupAtMs() == null) {
                if (current == null) {
                    current = emptyState();
                }
                long cleanupAt = at + retention + 1;
                ctx.timerService().registerEventTimeTimer(cleanupAt);
                current.setCleanupAtMs(cleanupAt);
                state.update(current);
            }
            return;
        }
        CepSubjectState current = state.value();
        if (current == null) {
            current = emptyState();
        } else if (current.getDroppedBeforeMs() != null && at < current.getDroppedBeforeMs()) {
            return;
        }
        List<CepFact> facts = current.getFacts();
        for (CepFact f : facts) {
            if (f.getEventId().equals(fact.getEventId())) {
                return; // a repeated event
            }
        }
        int position = positionOf(facts, fact);
        boolean late = at <= watermark;
        List<CepFact> history = null;
        if (late && hasSettled(current) && (position < evaluatedCount(facts, watermark) || settingsChanged(current))) {
            // It lands inside the history the value does not hold (or the tail is stale): re-read all of it.
            history = history(current);
            for (CepFact f : history) {
                if (f.getEventId().equals(fact.getEventId())) {
                    return;
                }
            }
        }
        facts.add(position, fact);
        pattern.deadline(fact, s).ifPresent(d -> ctx.timerService().registerEventTimeTimer(d.toEpochMilli()));
        if (current.getCleanupAtMs() == null) {
            long cleanupAt = at + retention + 1;
            ctx.timerService().registerEventTimeTimer(cleanupAt);
            current.setCleanupAtMs(cleanupAt);
        }
        if (late) {
            evaluate(ctx.getCurrentKey(), current, history, watermark,
                    watermark == Long.MAX_VALUE ? null : Instant.ofEpochMilli(watermark), s, ctx.timerService(), out);
        } else {
            ctx.timerService().registerEventTimeTimer(at);
            state.update(current);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Alert> out) throws Exception {
        List<CepFact> arrived = pattern.splitsHistory() ? pending.get(timestamp) : null;
        CepSubjectState current = state.value();
        if (current == null) {
            if (arrived == null) {
                return;
            }
            current = emptyState();
        }
        PatternSettings s = settings(ctx.getBroadcastState(PatternMatcher.RULES));
        TimerService timers = ctx.timerService();
        boolean cleanup = current.getCleanupAtMs() != null && current.getCleanupAtMs() == timestamp;
        boolean due = arrived != null;
        if (arrived != null) {
            pending.remove(timestamp);
            List<CepFact> facts = current.getFacts();
            for (CepFact fact : arrived) {
                facts.add(positionOf(facts, fact), fact);
            }
        }
        for (CepFact f : due ? List.<CepFact>of() : current.getFacts()) {
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
            List<CepFact> history = hasSettled(current) && settingsChanged(current) ? history(current) : null;
            // As PatternMatcher: a deadline timer behind the horizon a late fact was evaluated at evaluates there.
            // That horizon is kept outside the state here, which stays as this version wrote it (for restore tests).
            long horizon = Math.max(timestamp, horizons.getOrDefault(ctx.getCurrentKey(), Long.MIN_VALUE));
            evaluate(ctx.getCurrentKey(), current, history, horizon,
                    endOfInput ? null : Instant.ofEpochMilli(horizon), s, timers, out);
        } else {
            store(current, current.getFacts(), null, Collections.emptySet(), timestamp, s, timers);
        }
    }

    @Override
    public void processBroadcastElement(RuleDefinition rule, Context ctx, Collector<Alert> out) throws Exception {
        if (!PatternSettings.isPatternKind(rule.getKind())) {
            return;
        }
        BroadcastState<String, RuleDefinition> rules = ctx.getBroadcastState(PatternMatcher.RULES);
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
            settingsHash = s.toString().hashCode();
        }
        return settings;
    }

    private static CepSubjectState emptyState() {
        return CepSubjectState.newBuilder().setFacts(new ArrayList<>()).build();
    }

    /** Where {@code fact} goes in {@code facts} (event-time order, ties by event id): after every fact not after it. */
    private static int positionOf(List<CepFact> facts, CepFact fact) {
        int position = facts.size();
        while (position > 0 && ORDER.compare(facts.get(position - 1), fact) > 0) {
            position--;
        }
        return position;
    }

    private static boolean hasSettled(CepSubjectState current) {
        return current.getSettledFrom() < current.getSettledNext();
    }

    /** The tail in the value was cut under other thresholds (or by a build before the tail existed). */
    private boolean settingsChanged(CepSubjectState current) {
        return current.getSettingsHash() == null || current.getSettingsHash() != settingsHash;
    }

    /** How many of the value's facts event time has passed, i.e. were evaluated (the rest wait for their timer). */
    private static int evaluatedCount(List<CepFact> facts, long watermark) {
        int n = facts.size();
        while (n > 0 && facts.get(n - 1).getOccurredAtMs() > watermark) {
            n--;
        }
        return n;
    }

    /**
     * The settled facts, in the order of their keys {@code settledFrom ..}: position {@code i} holds key
     * {@code settledFrom + i} (null where an entry is missing, which {@link #store} then rewrites).
     */
    private List<CepFact> history(CepSubjectState current) throws Exception {
        long from = current.getSettledFrom();
        int n = (int) (current.getSettledNext() - from);
        CepFact[] bySeq = new CepFact[n];
        for (Map.Entry<Long, CepFact> e : settled.entries()) {
            long i = e.getKey() - from;
            if (i >= 0 && i < n) {
                bySeq[(int) i] = e.getValue();
            }
        }
        return Arrays.asList(bySeq);
    }

    /**
     * Runs the pattern over the facts up to {@code horizon} and reports what changed, then prunes and stores. Without
     * {@code history} it runs over the value's facts only (the tail and what was added since): by
     * {@link SubjectPattern#tailStart} that finds every occurrence an in-order fact can make or change. With it, over
     * every retained fact.
     */
    private void evaluate(String key, CepSubjectState current, List<CepFact> history, long horizon, Instant timeReached,
                          PatternSettings s, TimerService timers, Collector<Alert> out) throws Exception {
        horizons.merge(key, horizon, Math::max);
        List<CepFact> facts = current.getFacts();
        if (history != null) {
            List<CepFact> all = new ArrayList<>(history.size() + facts.size());
            for (CepFact f : history) {
                if (f != null) {
                    all.add(f);
                }
            }
            all.addAll(facts);
            all.sort(ORDER);
            facts = all;
        }
        Set<CepFact> reported = Collections.newSetFromMap(new IdentityHashMap<>());
        if (pattern.enabled(s)) {
            int settledCount = evaluatedCount(facts, horizon);
            Long dropped = current.getDroppedBeforeMs();
            long trustFrom = dropped == null ? Long.MIN_VALUE : dropped + pattern.guard(s).toMillis();
            List<Finding> found = pattern.find(key, facts.subList(0, settledCount), s, timeReached);
            Reconciliation.reconcile(pattern, key, facts.subList(0, settledCount), found, trustFrom,
                    current.getSettingsHash() != null && current.getSettingsHash() == settingsHash, s, reported, out,
                    (unused, f, e) -> {
                        throw e;
                    });
        }
        current.setSettingsHash(settingsHash);
        store(current, facts, history, reported, horizon, s, timers);
    }

    /**
     * Drops the facts older than the retention before {@code horizon} (with their pending deadlines), moves the
     * evaluated facts before the pattern's tail to the settled map, and stores the rest in the value; with nothing
     * left, clears the key's state and timers. Re-arms the clean-up timer if it has fired.
     *
     * @param facts    the value's facts, or (with {@code history}) every retained fact, in event-time order
     * @param history  the settled facts as read by {@link #history}, when {@code facts} includes them; null otherwise
     * @param reported facts whose reported alert changed in this evaluation, to be written back if settled
     */
    private void store(CepSubjectState current, List<CepFact> facts, List<CepFact> history, Set<CepFact> reported,
                       long horizon, PatternSettings s, TimerService timers) throws Exception {
        long cutoff = horizon == Long.MAX_VALUE ? Long.MAX_VALUE : horizon - pattern.retention(s).toMillis();
        long from = current.getSettledFrom();
        long next = current.getSettledNext();
        boolean droppedAny = false;
        if (history == null) {
            // The settled facts are older than the value's: drop from the oldest while they are past the cutoff.
            Long headAt = current.getSettledHeadAtMs();
            while (from < next && (headAt == null || headAt < cutoff)) {
                settled.remove(from);
                from++;
                droppedAny = true;
                CepFact head = from < next ? settled.get(from) : null;
                headAt = head == null ? null : head.getOccurredAtMs();
            }
            current.setSettledHeadAtMs(from < next ? headAt : null);
        }
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
        if (kept.isEmpty()) {
            if (from < next || history != null) {
                settled.clear();
            }
            Long newestWaiting = newestPending();
            if (newestWaiting != null) {
                // Facts still wait for their time (and their timers): keep where history was cut, and the clean-up.
                if (drop > 0 || droppedAny) {
                    Long dropped = current.getDroppedBeforeMs();
                    current.setDroppedBeforeMs(dropped == null ? cutoff : Math.max(dropped, cutoff));
                }
                current.setFacts(new ArrayList<>());
                current.setSettledFrom(next);
                current.setSettledNext(next);
                current.setSettledHeadAtMs(null);
                if (current.getCleanupAtMs() == null) {
                    long cleanupAt = newestWaiting + pattern.retention(s).toMillis() + 1;
                    timers.registerEventTimeTimer(cleanupAt);
                    current.setCleanupAtMs(cleanupAt);
                }
                state.update(current);
            } else {
                if (current.getCleanupAtMs() != null) {
                    timers.deleteEventTimeTimer(current.getCleanupAtMs());
                }
                state.clear();
            }
            return;
        }
        if (drop > 0 || droppedAny) {
            Long dropped = current.getDroppedBeforeMs();
            current.setDroppedBeforeMs(dropped == null ? cutoff : Math.max(dropped, cutoff));
        }
        int evaluated = evaluatedCount(kept, horizon);
        int tail = evaluated == 0 ? 0 : Math.max(0, Math.min(evaluated - 1, pattern.tailStart(kept.subList(0, evaluated), s)));
        if (history == null) {
            if (tail > 0 && from == next) {
                current.setSettledHeadAtMs(kept.get(0).getOccurredAtMs());
            }
            for (CepFact f : kept.subList(0, tail)) {
                settled.put(next++, f);
            }
        } else {
            // Everything was re-read: write back only what moved (a late fact shifts the facts after it) or changed.
            long oldFrom = from;
            long newFrom = from;
            for (CepFact f : history) {
                if (f != null && f.getOccurredAtMs() < cutoff) {
                    newFrom++;
                }
            }
            for (long seq = oldFrom; seq < newFrom; seq++) {
                settled.remove(seq);
            }
            for (int i = 0; i < tail; i++) {
                long seq = newFrom + i;
                CepFact f = kept.get(i);
                boolean unchanged = seq < next && history.get((int) (seq - oldFrom)) == f && !reported.contains(f);
                if (!unchanged) {
                    settled.put(seq, f);
                }
            }
            for (long seq = newFrom + tail; seq < next; seq++) {
                settled.remove(seq);
            }
            from = newFrom;
            next = newFrom + tail;
            current.setSettledHeadAtMs(tail > 0 ? kept.get(0).getOccurredAtMs() : null);
        }
        current.setSettledFrom(from);
        current.setSettledNext(next);
        current.setFacts(new ArrayList<>(kept.subList(tail, kept.size())));
        if (current.getCleanupAtMs() == null) {
            List<CepFact> left = current.getFacts();
            long newest = left.get(left.size() - 1).getOccurredAtMs();
            Long newestWaiting = newestPending();
            if (newestWaiting != null && newestWaiting > newest) {
                newest = newestWaiting;
            }
            long cleanupAt = newest + pattern.retention(s).toMillis() + 1;
            timers.registerEventTimeTimer(cleanupAt);
            current.setCleanupAtMs(cleanupAt);
        }
        state.update(current);
    }

    /**
     * The newest time a fact waits for in {@code pending-facts}, or null: read only when the clean-up timer is re-armed
     * (once per retention, or when the history runs out), so that it is armed at the newest fact, as with every fact in
     * the value.
     */
    private Long newestPending() throws Exception {
        if (!pattern.splitsHistory()) {
            return null;
        }
        Long newest = null;
        for (Long at : pending.keys()) {
            if (newest == null || at > newest) {
                newest = at;
            }
        }
        return newest;
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
