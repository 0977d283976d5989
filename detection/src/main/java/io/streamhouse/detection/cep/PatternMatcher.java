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
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 * <p><b>State: a value per key, and a map for a long history.</b> The input is facts, not events ({@link FactsOf},
 * before the keyed exchange): the few fields of an event the pattern needs. A fact not kept
 * ({@link SubjectPattern#keeps}) touches neither state nor timers. Per key:
 * <ul>
 *   <li>{@code subject-facts}, one {@link CepSubjectState} (Avro): the facts the next in-order evaluation needs — the
 *       pattern's <i>tail</i> of the evaluated facts ({@link SubjectPattern#tailStart}) and the facts event time has
 *       not reached yet — each with the alert last reported with it as anchor; where history was cut; the key's
 *       clean-up and evaluation timers and how far it was evaluated; where the settled facts are; the times of the
 *       facts waiting in {@code pending-facts}.</li>
 *   <li>{@code settled-facts}, a map of the retained, evaluated facts before the tail, one entry per fact under a
 *       per-key sequence number given in event-time order (so the oldest is the entry under {@code settledFrom}).</li>
 *   <li>{@code pending-facts}, a map of the facts event time has not reached yet, by event time: an in-order fact is
 *       one entry written, and the value (the tail) read and, when the time is new, written with the time listed
 *       ({@code pendingAtMs}), so that an evaluation reads the entries by key and never iterates the map (RocksDB
 *       would step over every deleted entry on the way).</li>
 * </ul>
 * The two maps are used by patterns that {@link SubjectPattern#splitsHistory split their history} (the telemetry
 * ones); the others keep pending facts in the value as well, and their map states stay empty.
 * <p>Why this layout: the two telemetry patterns keep an hour (maintenance) or ten minutes (overheating) of a
 * vehicle's readings, and with the whole history in one value every reading decoded and re-encoded all of it twice
 * (on arrival and at its evaluation) — 87 % of the matchers' time in a profile, growing with the reporting rate. But
 * an in-order reading can only make or change an occurrence together with the last reading (maintenance) or the
 * current rising run (overheating): that tail is all the value holds, and a reading costs a constant amount — one
 * pending entry written and the small value read and written on arrival, then at its evaluation that entry read and
 * deleted and the value read and written (once for all the facts evaluated together: see Event time), plus one map write when the reading leaves the tail and one delete and one read when it leaves the
 * retention. Pending readings are kept apart because a job catching up on a backlog (or a watermark held back by a
 * slow partition) can have many readings per vehicle waiting for their time: in the value, each arrival rewrote all
 * of them (seen in a profile of the benchmark after the tail alone had been introduced). The history before the tail is read again only when it can matter:
 * a late fact that lands before the value's last evaluated fact (or a duplicate of a settled one), and the first
 * evaluation after the thresholds changed (the tail was cut under the old ones: {@code settingsHash}); then the
 * pattern runs over every retained fact, as it always did, and only the map entries that moved or changed are
 * rewritten. A sequence number rather than the event time keys the map because pruning must find the oldest entry
 * without iterating, and Flink promises no iteration order. Patterns with a short history (card testing, impossible
 * travel, account takeover, parcel SLA) keep the default tail, every fact: their map stays empty and they work as
 * before, the value read and written on arrival and at each evaluation. (Impossible travel split like maintenance —
 * its occurrence is two consecutive uses — was not faster in the benchmark, twice: a card has a few uses a day, so its
 * value is small anyway; see docs/benchmarks.md.) A value written before the map existed (schema v1) is the
 * same thing as a value whose tail is everything, so it is read as it is and split at its first evaluation.
 *
 * <p><b>Event time.</b> A fact is added when its event arrives and evaluated once, when the watermark passes its time
 * (an event-time timer), so out-of-order events within the watermark's bound are seen in event-time order. Patterns
 * about something that did not happen (a parcel not delivered) also set a timer at their deadline: the partial match
 * times out when event time passes it. At end of input (watermark at +∞) nothing times out: the stream did not show
 * that the time passed.
 * <p>A key has at most one <i>evaluation</i> timer ({@code evaluationTimerMs}), at its earliest waiting fact, moved
 * earlier when an earlier fact arrives. When it fires (or the clean-up or a deadline does), the key's waiting facts the
 * watermark has passed are evaluated one time after the other, each with its own time as horizon and time reached —
 * what a timer per fact did, in the same order — but only up to the key's next clean-up or deadline timer, which Flink
 * fires after, in order; the evaluation timer is then registered at the earliest fact still waiting (it may be behind
 * the watermark already: Flink fires it in the same advance). So a backlog of facts per key costs one timer and one
 * read and write of the value instead of one each per fact (timers in RocksDB were most of the matchers' time in a
 * profile), and the alerts are the same, per key in the same order; only the order between keys within one advance
 * of the watermark changes. {@code evaluatedToMs}, the horizon of the last evaluation, tells which facts in the value
 * wait (those after it) and which timers are left over: state written before v3 has a timer per waiting fact, and
 * once an evaluation took that fact, its timer finds the horizon past it and does nothing. (A deadline timer left at
 * a time the current thresholds no longer give is treated the same way when it is behind the horizon; before, it
 * pruned and moved facts without alerting.)
 *
 * <p><b>Late events (reconciliation).</b> An event behind the watermark (already recorded on {@code <topic>.late}
 * upstream) is added to the facts and the pattern re-evaluated at once. The alerts in effect at the end (not
 * superseded, not withdrawn) are then those in-order processing gives: an occurrence is identified by its events, a
 * changed one is revised by an alert that {@code supersedes} it, and one a late event showed false is withdrawn
 * ({@link Reconciliation#reconcile}). An event older than the pattern's retention behind the watermark cannot change anything and is
 * only recorded. "Behind the watermark" means behind what the subject has reached: the later of the operator's
 * watermark and the horizon its state was evaluated to. They differ only after a restore, when the operator's
 * watermark starts again at its minimum: an event replayed from after the checkpoint's barrier that the state's
 * horizon has passed is reconciled at once, not left waiting for a timer that finds its time already evaluated.
 *
 * <p><b>Clearing.</b> Facts older than the retention before the evaluated time are dropped at each evaluation (the
 * settled ones from the oldest; the map is read only when one goes). Each
 * key has at most one clean-up timer, at its newest fact's time plus the retention (re-armed when it fires and newer
 * facts remain; the facts waiting in {@code pending-facts} count, their times listed in the value); once no
 * fact is left, the key's state and its remaining timers are deleted. A repeated event id is dropped (the log is
 * at-least-once per event id).
 */
public final class PatternMatcher extends KeyedBroadcastProcessFunction<String, Tuple2<String, CepFact>, RuleDefinition, Alert> {
    private static final Logger LOG = LoggerFactory.getLogger(PatternMatcher.class);

    /** The latest valid {@code cep-*} definition of each pattern, by rule id: the broadcast state every matcher reads. */
    public static final MapStateDescriptor<String, RuleDefinition> RULES = new MapStateDescriptor<>(
            "cep-pattern-rules", Types.STRING, new AvroTypeInfo<>(RuleDefinition.class));

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
    /**
     * The pattern's retention and guard under {@link #settings}, in milliseconds: computed once per change of the
     * thresholds, since a pattern may derive them with {@code Duration} arithmetic ({@code multipliedBy} goes through
     * {@code BigDecimal}), which a profile showed at a tenth of a telemetry matcher's time when done per event.
     */
    private transient long retentionMs;
    private transient long guardMs;

    /** The matches whose alert could not be built, for {@code <topic>.dlq} of the pattern's events. */
    static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("match-dead-letters") {
    };

    /** The topic whose events the pattern's occurrences are anchored on: its {@code .dlq} takes what cannot be alerted. */
    private final String anchorTopic;
    /** The context of the element or timer being processed: where {@link #deadLetter} writes. */
    private transient ReadOnlyContext context;

    public PatternMatcher(SubjectPattern<?> pattern, String anchorTopic) {
        this.pattern = pattern;
        this.anchorTopic = anchorTopic;
    }

    /**
     * A match that cannot be turned into an alert (the pattern threw while building its findings, or the alert could
     * not be built): logged and sent to the dead letters with the reason, and the subject's processing goes on as if
     * there had been no match, so one record cannot stop the job (every restart would replay it). Without the raw
     * record at hand (the matcher sees facts), the dead letter's key is the subject and its value the event ids
     * involved; partition and offset are -1.
     */
    private void deadLetter(String key, List<CepFact> facts, Finding finding, RuntimeException e) {
        context.output(DEAD_LETTERS, DeadLetter.unalertable(pattern, anchorTopic, "match-" + pattern.kind().ruleId(), key,
                facts, finding, e, LOG));
    }

    @Override
    public void open(OpenContext openContext) {
        state = getRuntimeContext().getState(new ValueStateDescriptor<>(STATE, new AvroTypeInfo<>(CepSubjectState.class)));
        settled = getRuntimeContext().getMapState(
                new MapStateDescriptor<>(SETTLED, Types.LONG, new AvroTypeInfo<>(CepFact.class)));
        pending = getRuntimeContext().getMapState(
                new MapStateDescriptor<>(PENDING, Types.LONG, Types.LIST(new AvroTypeInfo<>(CepFact.class))));
    }

    @Override
    public void processElement(Tuple2<String, CepFact> subjectAndFact, ReadOnlyContext ctx, Collector<Alert> out)
            throws Exception {
        context = ctx;
        PatternSettings s = settings(ctx.getBroadcastState(RULES));
        CepFact fact = subjectAndFact.f1;
        if (!pattern.keeps(fact, s)) {
            return;
        }
        long at = fact.getOccurredAtMs();
        long watermark = ctx.timerService().currentWatermark();
        long retention = retentionMs;
        if (watermark != Long.MIN_VALUE && at < watermark - retention) {
            return; // older than anything still retained: it can no longer change an occurrence
        }
        boolean inOrder = pattern.splitsHistory() && at > watermark;
        CepSubjectState read = inOrder ? state.value() : null;
        if (inOrder && !behindEvaluated(read, at)) {
            // In order: it waits for its time apart; the value (the tail, a few facts) is read for the clean-up timer
            // and written only to arm it; the other waiting facts are not touched.
            CepSubjectState current = read;
            if (current != null && current.getDroppedBeforeMs() != null && at < current.getDroppedBeforeMs()) {
                return;
            }
            boolean changed = current != null && migrate(current);
            // A value lists every time an entry waits under (migrate lists them for state from before v3), so a time
            // it does not list has no entry to read. Without a value (a new subject, or state from before v3 whose
            // value was cleared while facts waited) the entry is read.
            List<CepFact> sameTime = current == null || Collections.binarySearch(current.getPendingAtMs(), at) >= 0
                    ? pending.get(at) : null;
            if (current == null) {
                current = emptyState();
            }
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
            if (sameTime == null) {
                List<Long> times = current.getPendingAtMs();
                int i = Collections.binarySearch(times, at);
                if (i < 0) {
                    times.add(-i - 1, at);
                    changed = true;
                }
            }
            changed |= armEvaluation(at, current, s, ctx.timerService());
            if (current.getCleanupAtMs() == null) {
                long cleanupAt = at + retention + 1;
                ctx.timerService().registerEventTimeTimer(cleanupAt);
                current.setCleanupAtMs(cleanupAt);
                changed = true;
            }
            if (changed) {
                state.update(current);
            }
            return;
        }
        CepSubjectState current = read != null ? read : state.value();
        if (current == null) {
            current = emptyState();
        } else if (current.getDroppedBeforeMs() != null && at < current.getDroppedBeforeMs()) {
            return;
        } else {
            migrate(current);
        }
        // After a restore the operator's watermark starts again at its minimum while the restored state was evaluated
        // up to the watermark of before: time has reached the later of the two, and a fact behind it is late.
        Long evaluatedTo = current.getEvaluatedToMs();
        long reached = evaluatedTo == null ? watermark : Math.max(watermark, evaluatedTo);
        if (reached != Long.MIN_VALUE && at < reached - retention) {
            return; // older than anything still retained
        }
        List<CepFact> facts = current.getFacts();
        for (CepFact f : facts) {
            if (f.getEventId().equals(fact.getEventId())) {
                return; // a repeated event
            }
        }
        int position = positionOf(facts, fact);
        boolean late = at <= reached;
        List<CepFact> history = null;
        if (late && hasSettled(current) && (position < evaluatedCount(facts, reached) || settingsChanged(current))) {
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
            boolean alive = evaluate(ctx.getCurrentKey(), current, history, reached,
                    reached == Long.MAX_VALUE ? null : Instant.ofEpochMilli(reached), s, ctx.timerService(), out);
            write(current, alive);
        } else {
            armEvaluation(at, current, s, ctx.timerService());
            state.update(current);
        }
    }

    /**
     * Whether the subject's state was already evaluated past {@code at}: only after a restore, before the first
     * watermark arrives (the restored operator's watermark is at its minimum; the state's horizon is not).
     */
    private static boolean behindEvaluated(CepSubjectState current, long at) {
        return current != null && current.getEvaluatedToMs() != null && at <= current.getEvaluatedToMs();
    }

    /**
     * Makes sure the subject's one evaluation timer is at or before {@code at}, a fact now waiting for its time: if it
     * is later (or there is none), moves it to {@code at}; the timer it replaces is deleted unless the clean-up or a
     * deadline shares it. Returns whether {@code current} changed.
     */
    private boolean armEvaluation(long at, CepSubjectState current, PatternSettings s, TimerService timers) {
        Long armed = current.getEvaluationTimerMs();
        if (armed != null && armed <= at) {
            return false;
        }
        if (armed != null && !sharedWithOtherTimer(armed, current, s)) {
            timers.deleteEventTimeTimer(armed);
        }
        timers.registerEventTimeTimer(at);
        current.setEvaluationTimerMs(at);
        return true;
    }

    /** Whether the clean-up or a deadline is at {@code timestamp}: timers are one per key and time. */
    private boolean sharedWithOtherTimer(long timestamp, CepSubjectState current, PatternSettings s) {
        if (current.getCleanupAtMs() != null && current.getCleanupAtMs() == timestamp) {
            return true;
        }
        return hasDeadlineAt(timestamp, current.getFacts(), s);
    }

    private boolean hasDeadlineAt(long timestamp, List<CepFact> facts, PatternSettings s) {
        for (CepFact f : facts) {
            if (pattern.deadline(f, s).map(d -> d.toEpochMilli() == timestamp).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    private void write(CepSubjectState current, boolean alive) throws Exception {
        if (alive) {
            state.update(current);
        } else {
            state.clear();
        }
    }

    /**
     * A timer of the subject fired: the clean-up, a deadline, the evaluation timer, or several at once (one timer per
     * key and time). First what that time needs, as its own timer always did; then, in event-time order, each time of
     * the facts still waiting that the watermark has passed, as if each had its own timer — up to, not including, the
     * subject's next clean-up or deadline timer, which Flink fires after, in order; a fact waiting from there on gets
     * the evaluation timer. So the facts are evaluated in the same order and with the same horizons as with a timer per
     * fact, and the value is read and written once.
     */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Alert> out) throws Exception {
        context = ctx;
        CepSubjectState current = state.value();
        PatternSettings s = settings(ctx.getBroadcastState(RULES));
        if (current == null) {
            if (!pattern.splitsHistory() || !pending.contains(timestamp)) {
                return;
            }
            // Waiting facts without a value: state from before v3, so its waiting times are listed by migrate below.
            current = emptyState();
            current.setEvaluatedToMs(null);
        }
        migrate(current);
        if (alreadyEvaluated(timestamp, current, s)) {
            return;
        }
        TimerService timers = ctx.timerService();
        long watermark = timers.currentWatermark();
        Long nextOther = nextOtherTimer(timestamp, current, s);
        long until = nextOther == null ? watermark : Math.min(watermark, nextOther - 1);
        boolean endOfInput = watermark == Long.MAX_VALUE;
        String key = ctx.getCurrentKey();
        boolean alive;
        if (pattern.splitsHistory()) {
            // The waiting facts' times are in the value; each time's entry is read and deleted as it is evaluated.
            List<Long> times = current.getPendingAtMs();
            int at = Collections.binarySearch(times, timestamp);
            if (at >= 0) {
                times.remove(at);
            }
            alive = step(key, timestamp, current, pending.get(timestamp), endOfInput, s, timers, out);
            while (alive && !times.isEmpty() && times.get(0) <= until) {
                long t = times.remove(0);
                alive = step(key, t, current, pending.get(t), endOfInput, s, timers, out);
            }
            rearmEvaluation(timestamp, current, alive && !times.isEmpty() ? times.get(0) : null, s, timers);
        } else {
            // The facts after the last evaluation's horizon wait in the value (state from before v3: those from this
            // timer's time on; every earlier one had its own timer, which fired first).
            long evaluatedTo = current.getEvaluatedToMs() == null ? timestamp - 1 : current.getEvaluatedToMs();
            alive = step(key, timestamp, current, null, endOfInput, s, timers, out);
            Long next = alive ? firstAfter(current.getFacts(), Math.max(evaluatedTo, timestamp)) : null;
            while (next != null && next <= until) {
                alive = step(key, next, current, null, endOfInput, s, timers, out);
                next = alive ? firstAfter(current.getFacts(), next) : null;
            }
            rearmEvaluation(timestamp, current, next, s, timers);
        }
        write(current, alive);
    }

    /**
     * What a timer at {@code t} did when each waiting fact had its own: takes the facts waiting for {@code t}
     * ({@code arrived}, patterns that split; the others hold them in the value), and evaluates at horizon {@code t}
     * if a fact is at {@code t} or has its deadline there; a clean-up alone only prunes and re-arms. Returns whether the
     * subject has state left.
     */
    private boolean step(String key, long t, CepSubjectState current, List<CepFact> arrived, boolean endOfInput,
                         PatternSettings s, TimerService timers, Collector<Alert> out) throws Exception {
        boolean cleanup = current.getCleanupAtMs() != null && current.getCleanupAtMs() == t;
        boolean due = arrived != null;
        if (arrived != null) {
            pending.remove(t);
            List<CepFact> facts = current.getFacts();
            for (CepFact fact : arrived) {
                facts.add(positionOf(facts, fact), fact);
            }
        }
        for (CepFact f : due ? List.<CepFact>of() : current.getFacts()) {
            if (f.getOccurredAtMs() == t
                    || pattern.deadline(f, s).map(d -> d.toEpochMilli() == t).orElse(false)) {
                due = true;
                break;
            }
        }
        if (cleanup) {
            current.setCleanupAtMs(null);
        }
        if (due) {
            List<CepFact> history = hasSettled(current) && settingsChanged(current) ? history(current) : null;
            // A deadline timer registered for a late fact is behind the horizon a late evaluation already reached:
            // evaluating at its own time would leave out facts already evaluated (a delivery after the deadline) and
            // bring back what they had revised. Time never goes back for a subject.
            Long evaluatedTo = current.getEvaluatedToMs();
            long horizon = evaluatedTo == null ? t : Math.max(t, evaluatedTo);
            return evaluate(key, current, history, horizon, endOfInput ? null : Instant.ofEpochMilli(horizon), s, timers, out);
        }
        return store(current, current.getFacts(), null, Collections.emptySet(), t, s, timers);
    }

    /**
     * A timer at or before the last evaluation's horizon that is neither the clean-up nor a deadline: an evaluation
     * timer of state written before v3 (a timer per waiting fact) whose facts an evaluation already took. It fires in
     * the same advance of the watermark as that evaluation, so the value has not changed since.
     */
    private boolean alreadyEvaluated(long timestamp, CepSubjectState current, PatternSettings s) {
        Long evaluatedTo = current.getEvaluatedToMs();
        return evaluatedTo != null && timestamp <= evaluatedTo && !sharedWithOtherTimer(timestamp, current, s);
    }

    /** The subject's first clean-up or deadline timer after {@code timestamp}, or null. */
    private Long nextOtherTimer(long timestamp, CepSubjectState current, PatternSettings s) {
        Long next = current.getCleanupAtMs() != null && current.getCleanupAtMs() > timestamp ? current.getCleanupAtMs() : null;
        for (CepFact f : current.getFacts()) {
            Optional<Instant> deadline = pattern.deadline(f, s);
            if (deadline.isPresent()) {
                long d = deadline.get().toEpochMilli();
                if (d > timestamp && (next == null || d < next)) {
                    next = d;
                }
            }
        }
        return next;
    }

    /** The time of the first fact after {@code time} ({@code facts} in event-time order), or null. */
    private static Long firstAfter(List<CepFact> facts, long time) {
        for (CepFact f : facts) {
            if (f.getOccurredAtMs() > time) {
                return f.getOccurredAtMs();
            }
        }
        return null;
    }

    /**
     * Leaves the evaluation timer at {@code next}, the earliest fact still waiting (none: no timer). The one that fired
     * ({@code timestamp}) is gone; one registered later than it and not at {@code next} is deleted unless the clean-up
     * or a deadline shares it.
     */
    private void rearmEvaluation(long timestamp, CepSubjectState current, Long next, PatternSettings s, TimerService timers) {
        Long armed = current.getEvaluationTimerMs();
        if (armed != null && armed > timestamp && !armed.equals(next) && !sharedWithOtherTimer(armed, current, s)) {
            timers.deleteEventTimeTimer(armed);
        }
        if (next != null && (armed == null || armed <= timestamp || !armed.equals(next))) {
            timers.registerEventTimeTimer(next);
        }
        current.setEvaluationTimerMs(next);
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
            settingsHash = s.toString().hashCode();
            retentionMs = pattern.retention(s).toMillis();
            guardMs = pattern.guard(s).toMillis();
        }
        return settings;
    }

    /** A new subject's state: nothing evaluated yet ({@code evaluatedToMs} set marks it as written by v3). */
    private static CepSubjectState emptyState() {
        return CepSubjectState.newBuilder().setFacts(new ArrayList<>()).setEvaluatedToMs(Long.MIN_VALUE)
                .setPendingAtMs(new ArrayList<>()).build();
    }

    /**
     * State written before v3 by a pattern that splits its history does not list the times of its waiting facts: they
     * are read from {@code pending-facts} once, the only time that map is iterated. Their own timers (one per fact, as
     * that version registered them) still fire; an evaluation may take their facts first, and those timers then find
     * nothing to do ({@link #alreadyEvaluated}). Returns whether the state changed.
     */
    private boolean migrate(CepSubjectState current) throws Exception {
        if (!pattern.splitsHistory() || current.getEvaluatedToMs() != null) {
            return false;
        }
        List<Long> times = new ArrayList<>();
        for (Long at : pending.keys()) {
            times.add(at);
        }
        Collections.sort(times);
        current.setPendingAtMs(times);
        current.setEvaluatedToMs(Long.MIN_VALUE);
        return true;
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
    private boolean evaluate(String key, CepSubjectState current, List<CepFact> history, long horizon, Instant timeReached,
                          PatternSettings s, TimerService timers, Collector<Alert> out) throws Exception {
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
            boolean sameSettings = !settingsChanged(current);
            int settledCount = evaluatedCount(facts, horizon);
            Long dropped = current.getDroppedBeforeMs();
            long trustFrom = dropped == null ? Long.MIN_VALUE : dropped + guardMs;
            List<CepFact> evaluated = facts.subList(0, settledCount);
            List<Finding> found;
            try {
                found = pattern.find(key, evaluated, s, timeReached);
            } catch (RuntimeException e) {
                deadLetter(key, evaluated, null, e);
                found = null;
            }
            if (found != null) {
                Reconciliation.reconcile(pattern, key, evaluated, found, trustFrom, sameSettings, s, reported, out,
                        (unalerted, f, e) -> deadLetter(key, unalerted, f, e));
            }
        }
        current.setSettingsHash(settingsHash);
        return store(current, facts, history, reported, horizon, s, timers);
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
    private boolean store(CepSubjectState current, List<CepFact> facts, List<CepFact> history, Set<CepFact> reported,
                          long horizon, PatternSettings s, TimerService timers) throws Exception {
        Long evaluatedTo = current.getEvaluatedToMs();
        current.setEvaluatedToMs(evaluatedTo == null ? horizon : Math.max(evaluatedTo, horizon));
        long cutoff = horizon == Long.MAX_VALUE ? Long.MAX_VALUE : horizon - retentionMs;
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
            Long newestWaiting = newestPending(current);
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
                    long cleanupAt = newestWaiting + retentionMs + 1;
                    timers.registerEventTimeTimer(cleanupAt);
                    current.setCleanupAtMs(cleanupAt);
                }
                return true;
            }
            if (current.getCleanupAtMs() != null) {
                timers.deleteEventTimeTimer(current.getCleanupAtMs());
            }
            return false;
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
            Long newestWaiting = newestPending(current);
            if (newestWaiting != null && newestWaiting > newest) {
                newest = newestWaiting;
            }
            long cleanupAt = newest + retentionMs + 1;
            timers.registerEventTimeTimer(cleanupAt);
            current.setCleanupAtMs(cleanupAt);
        }
        return true;
    }

    /**
     * The newest time a fact waits for in {@code pending-facts}, or null: needed when the clean-up timer is re-armed
     * (once per retention, or when the history runs out), so that it is armed at the newest fact, as with every fact in
     * the value.
     */
    private Long newestPending(CepSubjectState current) {
        if (!pattern.splitsHistory()) {
            return null;
        }
        List<Long> times = current.getPendingAtMs();
        return times.isEmpty() ? null : times.get(times.size() - 1);
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
