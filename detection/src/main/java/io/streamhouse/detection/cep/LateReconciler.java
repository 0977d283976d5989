package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.ReconciledSubject;
import io.streamhouse.domain.state.ReportedAlert;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Late events reconciled on the CEP library path (issue #21, item 3). A Flink CEP operator drops a fact behind its
 * watermark (its late data); the alerts it gives afterwards are those of a subject without that fact, and those it gave
 * before may be false now. This step, keyed by subject after the pattern's CEP operator(s), makes the alerts in effect
 * (not superseded, not withdrawn) those of the pattern's pure function over all the subject's facts, whatever order
 * they arrived in ({@link Reconciliation#reconcile}).
 *
 * <p>Inputs: the stamped facts (every one, the same the CEP operator gets), and the CEP operator's alerts together with
 * its late data. Per subject it keeps the facts within the pattern's retention (a list state, appended to: one merge
 * per fact, read only to re-evaluate or prune) and a small value ({@link ReconciledSubject}): the alerts in effect, with
 * their matched events.
 * <ul>
 *   <li><b>Clean subject</b> (no late fact within an occurrence's span): the CEP operator's alerts pass through,
 *       recorded as in effect. Nothing is evaluated.</li>
 *   <li><b>A late fact</b> (behind this step's watermark, or reported late by the CEP operator, whose watermark may be
 *       ahead of this step's): the subject is <i>dirty</i> until the fact's time plus the longest an occurrence spans
 *       ({@code retention - guard}), and is re-evaluated at once, as in-order processing would have from the fact's
 *       time to the watermark (at the fact, at each later fact, at the watermark): the pure function over the retained
 *       facts up to each, reconciled against the alerts in effect — an unchanged finding emits nothing, a changed
 *       occurrence supersedes the alert it shares events with, one the late fact showed false is withdrawn.</li>
 *   <li><b>While dirty</b>, the CEP operator's alerts for that time are held back (its view lacks the late fact), and
 *       the subject is re-evaluated instead at the time of each of its facts, of each held-back alert and of each
 *       deadline (a parcel's), and at the end of the dirty span. The subject's alerts are then the reconciliation's.
 *       An alert the CEP operator gives for a later time passes again; if it names as superseded an alert no longer in
 *       effect, it supersedes the one in effect that shares its events instead, so every chain stays a line.</li>
 * </ul>
 * Ordering: a timer fires when this step's watermark passes it, i.e. when both inputs have passed it, so every fact and
 * every CEP alert up to that time has arrived (the CEP operator emits a match before it forwards the watermark that
 * completed it). A fact older than the retention behind the watermark cannot change anything and is only on the late
 * topic (and counted, per topic of the fact, as the metric {@value #DROPPED_BEYOND_RETENTION}). Each subject has one clean-up timer, moved at most once per retention of event time.
 */
final class LateReconciler extends KeyedCoProcessFunction<String, StampedFact, Either<Alert, StampedFact>, Alert>
        implements CheckpointedFunction {
    private static final Logger LOG = LoggerFactory.getLogger(LateReconciler.class);

    static final String FACTS = "reconcile-facts";
    static final String STATE = "reconcile-subject";
    /** Operator state: the event time each subtask had reached at the checkpoint. */
    static final String WATERMARK = "reconcile-watermark";
    /** The metric group key whose value is the topic a dropped fact came from. */
    static final String TOPIC_GROUP = "topic";
    /** Facts older than the pattern's retention behind the watermark, per topic: they change nothing and are dropped. */
    static final String DROPPED_BEYOND_RETENTION = "droppedBeyondRetention";

    private final SubjectPattern<?> pattern;
    private final String anchorTopic;
    private final LibraryPatterns.StampedSettings settings;
    private transient ListState<StampedFact> facts;
    private transient ValueState<ReconciledSubject> state;
    private transient Counter evaluations;
    private transient Counter heldBack;
    private transient Map<String, Counter> droppedBeyondRetention;
    private transient Context context;
    /**
     * The event time this step had reached, kept across a restore: Flink checkpoints no watermark, so after a restore
     * every operator's starts again at none, and a fact behind the time reached before (a late event the job re-reads
     * from its checkpointed offsets) would look on time, to the CEP operator too, which then neither matches it in
     * order nor reports it late. This step takes such a fact as late (the minimum over the subtasks' times, as a
     * rescale moves keys between them).
     */
    private transient ListState<Long> reached;
    private transient long restoredWatermark = Long.MIN_VALUE;
    private transient long highestWatermark = Long.MIN_VALUE;

    LateReconciler(SubjectPattern<?> pattern, String anchorTopic) {
        this.pattern = pattern;
        this.anchorTopic = anchorTopic;
        this.settings = new LibraryPatterns.StampedSettings(pattern.kind());
    }

    @Override
    public void open(OpenContext openContext) {
        facts = getRuntimeContext().getListState(new ListStateDescriptor<>(FACTS, new AvroTypeInfo<>(StampedFact.class)));
        state = getRuntimeContext().getState(new ValueStateDescriptor<>(STATE, new AvroTypeInfo<>(ReconciledSubject.class)));
        evaluations = getRuntimeContext().getMetricGroup().counter("reconciliations");
        heldBack = getRuntimeContext().getMetricGroup().counter("alertsHeldBack");
        droppedBeyondRetention = new HashMap<>();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        reached = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>(WATERMARK, Types.LONG));
        if (context.isRestored()) {
            long lowest = Long.MAX_VALUE;
            for (Long w : reached.get()) {
                lowest = Math.min(lowest, w);
            }
            restoredWatermark = lowest == Long.MAX_VALUE ? Long.MIN_VALUE : lowest;
        }
        highestWatermark = restoredWatermark;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        reached.update(List.of(highestWatermark));
    }

    /** This step's event time: its watermark, or the one it had reached before a restore if that is later. */
    private long watermark(Context ctx) {
        long current = ctx.timerService().currentWatermark();
        highestWatermark = Math.max(highestWatermark, current);
        return current > restoredWatermark ? current : restoredWatermark;
    }

    @Override
    public void processElement1(StampedFact fact, Context ctx, Collector<Alert> out) throws Exception {
        context = ctx;
        PatternSettings s = settings.of(fact);
        long retention = pattern.retention(s).toMillis();
        long at = fact.getFact().getOccurredAtMs();
        long watermark = watermark(ctx);
        if (watermark != Long.MIN_VALUE && at < watermark - retention) {
            droppedBeyondRetention(fact.getFact()).inc();
            return; // cannot change anything: it is on the late topic
        }
        facts.add(fact);
        ReconciledSubject subject = load();
        boolean changed = false;
        if (subject == null) {
            subject = ReconciledSubject.newBuilder().setReported(new ArrayList<>()).setRetired(new ArrayList<>()).build();
            changed = true;
        }
        if (subject.getCleanupAtMs() == null || subject.getCleanupAtMs() < at + retention) {
            long cleanupAt = at + 2 * retention;
            if (subject.getCleanupAtMs() != null) {
                ctx.timerService().deleteEventTimeTimer(subject.getCleanupAtMs());
            }
            subject.setCleanupAtMs(cleanupAt);
            ctx.timerService().registerEventTimeTimer(cleanupAt);
            changed = true;
        }
        if (watermark != Long.MIN_VALUE && at <= watermark) {
            dirty(subject, at, s);
            catchUp(ctx.getCurrentKey(), subject, at, watermark, ctx, out);
            changed = true;
        } else if (isDirtyAt(subject, at)) {
            ctx.timerService().registerEventTimeTimer(at);
        }
        if (changed) {
            state.update(subject);
        }
    }

    @Override
    public void processElement2(Either<Alert, StampedFact> alertOrLate, Context ctx, Collector<Alert> out)
            throws Exception {
        context = ctx;
        ReconciledSubject subject = load();
        if (subject == null) {
            subject = ReconciledSubject.newBuilder().setReported(new ArrayList<>()).setRetired(new ArrayList<>()).build();
        }
        long watermark = watermark(ctx);
        if (alertOrLate.isRight()) {
            StampedFact late = alertOrLate.right();
            long at = late.getFact().getOccurredAtMs();
            dirty(subject, at, settings.of(late));
            evaluateAt(ctx.getCurrentKey(), subject, at, watermark, ctx, out);
            state.update(subject);
            return;
        }
        Alert alert = alertOrLate.left();
        long at = alert.getWindowEnd().toEpochMilli();
        if (isDirtyAt(subject, at)) {
            heldBack.inc();
            evaluateAt(ctx.getCurrentKey(), subject, at, watermark, ctx, out);
            state.update(subject);
            return;
        }
        if (passThrough(subject, alert, out)) {
            state.update(subject);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Alert> out) throws Exception {
        context = ctx;
        highestWatermark = Math.max(highestWatermark, ctx.timerService().currentWatermark());
        ReconciledSubject subject = load();
        if (subject == null) {
            return;
        }
        if (subject.getDirtyUntilMs() != null && timestamp <= subject.getDirtyUntilMs()) {
            evaluate(ctx.getCurrentKey(), subject, timestamp, timestamp, ctx, out);
        }
        if (subject.getCleanupAtMs() != null && timestamp == subject.getCleanupAtMs()) {
            subject.setCleanupAtMs(null);
            if (!prune(subject, timestamp, ctx)) {
                return; // nothing left: state cleared
            }
        }
        state.update(subject);
    }

    /** The counter of the topic {@code fact} came from, registered on its first drop. */
    private Counter droppedBeyondRetention(CepFact fact) {
        return droppedBeyondRetention.computeIfAbsent(pattern.topicOf(fact, anchorTopic), topic ->
                getRuntimeContext().getMetricGroup().addGroup(TOPIC_GROUP, topic).counter(DROPPED_BEYOND_RETENTION));
    }

    /**
     * The subject's value, its lists changeable: read from RocksDB they are Avro's {@code GenericData.Array}, whose
     * iterator cannot remove.
     */
    private ReconciledSubject load() throws Exception {
        ReconciledSubject subject = state.value();
        if (subject != null) {
            subject.setReported(new ArrayList<>(subject.getReported()));
            subject.setRetired(new ArrayList<>(subject.getRetired()));
        }
        return subject;
    }

    private boolean isDirtyAt(ReconciledSubject subject, long at) {
        return subject.getDirtyUntilMs() != null && at <= subject.getDirtyUntilMs();
    }

    /** The subject's alerts come from re-evaluation until an occurrence with a fact at {@code at} can no longer end. */
    private void dirty(ReconciledSubject subject, long at, PatternSettings s) {
        long until = at + pattern.retention(s).minus(pattern.guard(s)).toMillis();
        if (subject.getDirtyUntilMs() == null || subject.getDirtyUntilMs() < until) {
            subject.setDirtyUntilMs(until);
            context.timerService().registerEventTimeTimer(until);
        }
    }

    /** Re-evaluates now if event time has passed {@code at}, else when it does. */
    private void evaluateAt(String key, ReconciledSubject subject, long at, long watermark, Context ctx,
                            Collector<Alert> out) throws Exception {
        if (watermark != Long.MIN_VALUE && at <= watermark) {
            catchUp(key, subject, at, watermark, ctx, out);
        } else {
            ctx.timerService().registerEventTimeTimer(at);
        }
    }

    /**
     * Re-evaluates from {@code at}, which event time has passed, as in-order processing would have: at {@code at}, at
     * each later fact and deadline within the dirty span, and at the watermark. One evaluation at the watermark alone
     * would cut the retention and the trusted history from the watermark: an occurrence that started more than
     * {@code retention - guard} before it (an overheating run 5 min before, with the late reading minutes behind this
     * step's watermark) would not be reported, and the alert it should revise would stay as the CEP operator gave it.
     */
    private void catchUp(String key, ReconciledSubject subject, long at, long watermark, Context ctx,
                         Collector<Alert> out) throws Exception {
        TreeSet<Long> horizons = new TreeSet<>();
        horizons.add(at);
        horizons.add(watermark);
        long until = subject.getDirtyUntilMs() == null ? at : Math.min(watermark, subject.getDirtyUntilMs());
        for (StampedFact f : facts.get()) {
            long t = f.getFact().getOccurredAtMs();
            if (t > at && t <= until) {
                horizons.add(t);
            }
            pattern.deadline(f.getFact(), settings.of(f)).map(Instant::toEpochMilli)
                    .filter(d -> d > at && d <= until).ifPresent(horizons::add);
        }
        for (long horizon : horizons) {
            evaluate(key, subject, horizon, watermark, ctx, out);
        }
    }

    /**
     * The CEP operator's alert for a clean time: emitted and recorded as in effect. A repeat of an alert in effect is
     * dropped. Its {@code supersedes}:
     * <ul>
     *   <li>names an alert in effect: that one is no longer in effect;</li>
     *   <li>names a retired one (a re-evaluation revised or withdrew it): turned to the alert in effect that shares
     *       its events, or dropped when there is none, so no alert is superseded twice;</li>
     *   <li>names one not seen yet (a parcel's "never delivered" comes from the other parcel operator, whose output is
     *       not ordered with this one's): kept, and that alert is retired in advance — passed on when it comes (once),
     *       not put in effect.</li>
     * </ul>
     * An alert this step wrote before and has retired since (superseded or withdrawn) is not written again; when a
     * re-evaluation finds that occurrence again, it is written under a re-issue id ({@link Alerts#reissuedIdOf}).
     */
    private boolean passThrough(ReconciledSubject subject, Alert alert, Collector<Alert> out) {
        List<ReportedAlert> reported = subject.getReported();
        if (find(reported, alert.getAlertId()) != null) {
            return false;
        }
        ReportedAlert retired = find(subject.getRetired(), alert.getAlertId());
        if (retired != null) {
            if (!retired.getEventIds().isEmpty()) {
                return false; // written before and superseded or withdrawn since: an alert id is written once
            }
            // Retired in advance (named as superseded before it came): passed on once, not put in effect.
            retired.setEventIds(new ArrayList<>(alert.getMatchedEventIds()));
            out.collect(alert);
            return true;
        }
        String anchor = alert.getAttributes().get(Alerts.ANCHOR);
        ReportedAlert now = new ReportedAlert(alert.getAlertId(), anchor, new ArrayList<>(alert.getMatchedEventIds()),
                alert.getWindowEnd().toEpochMilli());
        String supersedes = alert.getAttributes().get(Alerts.SUPERSEDES);
        if (supersedes != null) {
            ReportedAlert revised = find(reported, supersedes);
            if (revised == null && find(subject.getRetired(), supersedes) == null) {
                subject.getRetired().add(new ReportedAlert(supersedes, anchor, List.of(), now.getWindowEndMs()));
            } else if (revised == null) {
                for (ReportedAlert r : reported) {
                    if (!Collections.disjoint(r.getEventIds(), alert.getMatchedEventIds())) {
                        revised = r;
                        break;
                    }
                }
                alert = Alert.newBuilder(alert).setAttributes(new HashMap<>(alert.getAttributes())).build();
                if (revised == null) {
                    alert.getAttributes().remove(Alerts.SUPERSEDES);
                } else {
                    alert.getAttributes().put(Alerts.SUPERSEDES, revised.getAlertId());
                }
            }
            if (revised != null) {
                reported.remove(revised);
                subject.getRetired().add(revised);
            }
        }
        reported.add(now);
        subject.setPatternVersion(alert.getPatternVersion());
        out.collect(alert);
        return true;
    }

    private static ReportedAlert find(List<ReportedAlert> alerts, String alertId) {
        for (ReportedAlert r : alerts) {
            if (r.getAlertId().equals(alertId)) {
                return r;
            }
        }
        return null;
    }

    /**
     * The pure function over the subject's retained facts up to {@code horizon}, reconciled against the alerts in
     * effect ({@link Reconciliation#reconcile}); the facts older than the retention are dropped first. The later
     * evaluations it needs are timers after {@code timersAfter} (up to there, the caller evaluates them).
     */
    private void evaluate(String key, ReconciledSubject subject, long horizon, long timersAfter, Context ctx,
                          Collector<Alert> out) throws Exception {
        List<StampedFact> retained = retained(subject, horizon);
        Map<String, Long> times = new HashMap<>();
        retained.forEach(f -> times.put(f.getFact().getEventId(), f.getFact().getOccurredAtMs()));
        long latest = Long.MIN_VALUE;
        for (ReportedAlert r : subject.getReported()) {
            Long anchorAt = times.get(r.getAnchorEventId());
            if (anchorAt == null || anchorAt > horizon) {
                continue;
            }
            latest = Math.max(latest, r.getWindowEndMs());
            for (String id : r.getEventIds()) {
                latest = Math.max(latest, times.getOrDefault(id, Long.MIN_VALUE));
            }
        }
        if (latest > horizon) {
            // An alert in effect whose anchor is up to the horizon reaches past it: its window ends after it (the CEP
            // operator gave it before the subject became dirty), or it matched a fact after it (an evaluation at a
            // later horizon gave it). Compared with the facts up to the horizon, it would look like another
            // occurrence, and the evaluation would turn the chain back to what the subject was before that fact.
            // Evaluate when event time has passed it, keeping the CEP operator's alerts until then held back.
            // Alerts anchored after the horizon (or dropped with their anchor) do not count: the evaluation keeps
            // them as they are, and waiting for the end of a later occurrence (which a CEP operator gives in the same
            // jump of its watermark) would let the retention drop the occurrence being re-evaluated first.
            if (subject.getDirtyUntilMs() == null || subject.getDirtyUntilMs() < latest) {
                subject.setDirtyUntilMs(latest);
            }
            if (latest > timersAfter) {
                ctx.timerService().registerEventTimeTimer(latest);
            }
            return;
        }
        evaluations.inc();
        List<CepFact> evaluated = new ArrayList<>();
        StampedFact newest = null;
        for (StampedFact f : retained) {
            if (f.getFact().getOccurredAtMs() <= horizon) {
                evaluated.add(CepFact.newBuilder(f.getFact()).setReportedAlertId(null).setReportedEventIds(null).build());
                newest = f;
            }
        }
        if (subject.getDirtyUntilMs() != null && horizon >= subject.getDirtyUntilMs()) {
            subject.setDirtyUntilMs(null);
        }
        if (newest == null) {
            return;
        }
        PatternSettings s = settings.of(newest);
        if (subject.getDirtyUntilMs() != null) {
            // Each later fact within the dirty span (some arrived before the subject became dirty) and each deadline
            // gets its own evaluation, as in-order processing would give it, so an occurrence is reported while its
            // start is still trusted (not at the end of the span, by when the retention may have passed it).
            long until = subject.getDirtyUntilMs();
            long after = Math.max(horizon, timersAfter);
            for (StampedFact f : retained) {
                long at = f.getFact().getOccurredAtMs();
                if (at > after && at <= until) {
                    ctx.timerService().registerEventTimeTimer(at);
                }
                pattern.deadline(f.getFact(), s).map(Instant::toEpochMilli)
                        .filter(d -> d > after && d <= until)
                        .ifPresent(d -> ctx.timerService().registerEventTimeTimer(d));
            }
        }
        if (!pattern.enabled(s)) {
            return;
        }
        Map<String, CepFact> byId = new HashMap<>();
        evaluated.forEach(f -> byId.put(f.getEventId(), f));
        List<ReportedAlert> notEvaluated = new ArrayList<>();
        for (ReportedAlert r : subject.getReported()) {
            CepFact anchor = byId.get(r.getAnchorEventId());
            if (anchor == null) {
                notEvaluated.add(r);
            } else {
                anchor.setReportedAlertId(r.getAlertId());
                anchor.setReportedEventIds(new ArrayList<>(r.getEventIds()));
            }
        }
        Instant timeReached = horizon == Long.MAX_VALUE ? null : Instant.ofEpochMilli(horizon);
        List<Finding> found;
        try {
            found = pattern.find(key, evaluated, s, timeReached);
        } catch (RuntimeException e) {
            deadLetter(key, evaluated, null, e);
            return;
        }
        Long dropped = subject.getDroppedBeforeMs();
        long trustFrom = dropped == null ? Long.MIN_VALUE : dropped + pattern.guard(s).toMillis();
        boolean sameSettings = subject.getPatternVersion() == null || subject.getPatternVersion() == pattern.version(s);
        Map<String, Long> windowEnds = new HashMap<>();
        List<Alert> emitted = new ArrayList<>();
        Collector<Alert> recording = new Collector<>() {
            @Override
            public void collect(Alert a) {
                windowEnds.put(a.getAlertId(), a.getWindowEnd().toEpochMilli());
                emitted.add(a);
                out.collect(a);
            }

            @Override
            public void close() {
            }
        };
        Set<CepFact> changed = Collections.newSetFromMap(new IdentityHashMap<>());
        // Written before and retired since (a retirement in advance names an alert this step has not written).
        Set<String> written = new HashSet<>();
        subject.getRetired().stream().filter(r -> !r.getEventIds().isEmpty()).forEach(r -> written.add(r.getAlertId()));
        Reconciliation.reconcile(pattern, key, evaluated, found, trustFrom, sameSettings, s, changed, written, recording,
                (unalerted, f, e) -> deadLetter(key, unalerted, f, e));
        Map<String, Long> before = new HashMap<>();
        subject.getReported().forEach(r -> before.put(r.getAlertId(), r.getWindowEndMs()));
        List<ReportedAlert> now = new ArrayList<>(notEvaluated);
        for (CepFact f : evaluated) {
            if (f.getReportedAlertId() != null) {
                long end = windowEnds.getOrDefault(f.getReportedAlertId(),
                        before.getOrDefault(f.getReportedAlertId(), f.getOccurredAtMs()));
                now.add(new ReportedAlert(f.getReportedAlertId(), f.getEventId(),
                        new ArrayList<>(f.getReportedEventIds()), end));
            }
        }
        Set<String> inEffect = new HashSet<>();
        now.forEach(r -> inEffect.add(r.getAlertId()));
        for (ReportedAlert r : subject.getReported()) {
            if (!inEffect.contains(r.getAlertId())) {
                subject.getRetired().add(r);
            }
        }
        subject.setReported(now);
        subject.setPatternVersion(pattern.version(s));
    }

    /**
     * The retained facts in event-time order (ties by event id), each event id once, without those older than the
     * retention before {@code horizon}; the list state is rewritten when that changed anything.
     */
    private List<StampedFact> retained(ReconciledSubject subject, long horizon) throws Exception {
        List<StampedFact> all = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        boolean rewrite = false;
        StampedFact newest = null;
        for (StampedFact f : facts.get()) {
            if (seen.add(f.getFact().getEventId())) {
                all.add(f);
                if (newest == null || f.getFact().getOccurredAtMs() > newest.getFact().getOccurredAtMs()) {
                    newest = f;
                }
            } else {
                rewrite = true;
            }
        }
        if (newest == null) {
            return all;
        }
        long cutoff = horizon == Long.MAX_VALUE ? Long.MIN_VALUE
                : horizon - pattern.retention(settings.of(newest)).toMillis();
        int before = all.size();
        all.removeIf(f -> f.getFact().getOccurredAtMs() < cutoff);
        if (all.size() != before) {
            rewrite = true;
            subject.setDroppedBeforeMs(cutoff);
            subject.getReported().removeIf(r -> r.getWindowEndMs() < cutoff);
            subject.getRetired().removeIf(r -> r.getWindowEndMs() < cutoff);
        }
        all.sort(new LibraryPatterns.ByEventId());
        if (rewrite) {
            facts.update(all);
        }
        return all;
    }

    /**
     * The clean-up timer: drops what left the retention; clears the subject when nothing is left (and it is not
     * dirty), else re-arms at the newest fact's time plus twice the retention. False when the subject was cleared.
     */
    private boolean prune(ReconciledSubject subject, long at, OnTimerContext ctx) throws Exception {
        List<StampedFact> left = retained(subject, at);
        if (left.isEmpty() && subject.getDirtyUntilMs() == null) {
            facts.clear();
            state.clear();
            return false;
        }
        long cleanupAt = left.isEmpty() ? subject.getDirtyUntilMs() + 1 : Math.max(at + 1,
                left.get(left.size() - 1).getFact().getOccurredAtMs()
                        + 2 * pattern.retention(settings.of(left.get(left.size() - 1))).toMillis());
        subject.setCleanupAtMs(cleanupAt);
        ctx.timerService().registerEventTimeTimer(cleanupAt);
        return true;
    }

    private void deadLetter(String key, List<CepFact> evaluated, Finding finding, RuntimeException e) {
        context.output(AlertsOfMatches.DEAD_LETTERS, DeadLetter.unalertable(pattern, anchorTopic,
                "reconcile-" + pattern.kind().ruleId(), key, evaluated, finding, e, LOG));
    }
}
