package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.RuleDefinition;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Runs one {@link SubjectPattern} per key (card, customer, parcel, vehicle) in event time, with thresholds from
 * broadcast state.
 *
 * <p><b>Why not Flink CEP's {@code Pattern} API.</b> A CEP pattern is compiled into an NFA when the job is built: its
 * {@code within} and the values in its conditions are fixed, and a CEP operator cannot read broadcast state, so new
 * thresholds would need a redeploy. Here the pattern is a pure function re-run over the subject's retained history,
 * and its parameters are read from the rules broadcast at every evaluation: a new {@code cep-*} definition on
 * {@code rules.definitions} applies from the next evaluation, no restart.
 *
 * <p><b>Event time.</b> An event is buffered in keyed state and evaluated when the watermark passes its time (an
 * event-time timer), so out-of-order events within the watermark's bound are seen in event-time order. Patterns
 * about something that did not happen (a parcel not delivered) also set a timer at their deadline: the partial match
 * times out when event time passes it. At end of input (watermark at +∞) nothing times out: the stream did not
 * show that the time passed.
 *
 * <p><b>Late events (reconciliation).</b> An event behind the watermark (already recorded on {@code <topic>.late}
 * upstream) is added to the history and the pattern re-evaluated at once. What it can still change: it can complete
 * an occurrence (a new alert) or change the events of one already reported (a new alert with attribute
 * {@code supersedes} naming the old one; occurrences are matched by their anchor event). It cannot withdraw an
 * alert: alerts are facts on the log, and a fraud flag is better kept than silently dropped. An event older than
 * the pattern's retention behind the watermark cannot change anything and is only recorded.
 *
 * <p><b>State.</b> Per key: the retained events by event id (a repeated event id is dropped: the log is
 * at-least-once per event id), the anchors already reported with their alert id, and the point before which history
 * was dropped. Everything is cleared once the history is empty, and each event sets a timer at its time plus the
 * retention, so no key keeps state or timers forever. All state is Avro or basic types.
 */
public final class PatternMatcher<E> extends KeyedBroadcastProcessFunction<String, E, RuleDefinition, Alert> {
    private static final Logger LOG = LoggerFactory.getLogger(PatternMatcher.class);

    /** The latest valid {@code cep-*} definition of each pattern, by rule id: the broadcast state every matcher reads. */
    public static final MapStateDescriptor<String, RuleDefinition> RULES = new MapStateDescriptor<>(
            "cep-pattern-rules", Types.STRING, new AvroTypeInfo<>(RuleDefinition.class));

    private final SubjectPattern<E> pattern;
    private final TypeInformation<E> eventType;
    private transient MapState<String, E> history;
    private transient MapState<String, String> reported;
    private transient ValueState<Long> droppedBefore;
    private transient PatternSettings settings;

    public PatternMatcher(SubjectPattern<E> pattern, TypeInformation<E> eventType) {
        this.pattern = pattern;
        this.eventType = eventType;
    }

    @Override
    public void open(OpenContext openContext) {
        history = getRuntimeContext().getMapState(new MapStateDescriptor<>("history", Types.STRING, eventType));
        reported = getRuntimeContext().getMapState(new MapStateDescriptor<>("reported", Types.STRING, Types.STRING));
        droppedBefore = getRuntimeContext().getState(new ValueStateDescriptor<>("dropped-before", Types.LONG));
    }

    @Override
    public void processElement(E event, ReadOnlyContext ctx, Collector<Alert> out) throws Exception {
        Envelope envelope = pattern.envelope(event);
        String id = envelope.getEventId();
        if (history.contains(id)) {
            return;
        }
        PatternSettings s = settings(ctx.getBroadcastState(RULES));
        long at = envelope.getOccurredAt().toEpochMilli();
        long watermark = ctx.timerService().currentWatermark();
        long retention = pattern.retention(s).toMillis();
        Long dropped = droppedBefore.value();
        if ((dropped != null && at < dropped) || (watermark != Long.MIN_VALUE && at < watermark - retention)) {
            return; // older than anything still retained: it can no longer change an occurrence
        }
        history.put(id, event);
        pattern.deadline(event, s).ifPresent(d -> ctx.timerService().registerEventTimeTimer(d.toEpochMilli()));
        ctx.timerService().registerEventTimeTimer(at + retention + 1);
        if (at <= watermark) {
            evaluate(ctx.getCurrentKey(), watermark, watermark == Long.MAX_VALUE ? null : Instant.ofEpochMilli(watermark),
                    s, out);
        } else {
            ctx.timerService().registerEventTimeTimer(at);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Alert> out) throws Exception {
        boolean endOfInput = ctx.timerService().currentWatermark() == Long.MAX_VALUE;
        evaluate(ctx.getCurrentKey(), timestamp, endOfInput ? null : Instant.ofEpochMilli(timestamp),
                settings(ctx.getBroadcastState(RULES)), out);
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

    private void evaluate(String key, long horizon, Instant timeReached, PatternSettings s, Collector<Alert> out)
            throws Exception {
        List<E> retained = new ArrayList<>();
        for (E e : history.values()) {
            retained.add(e);
        }
        retained.sort(Comparator.comparing((E e) -> pattern.envelope(e).getOccurredAt())
                .thenComparing(e -> pattern.envelope(e).getEventId()));
        if (pattern.enabled(s)) {
            List<E> settled = retained.stream()
                    .filter(e -> pattern.envelope(e).getOccurredAt().toEpochMilli() <= horizon).toList();
            Long dropped = droppedBefore.value();
            long trustFrom = dropped == null ? Long.MIN_VALUE : dropped + pattern.guard(s).toMillis();
            for (Finding f : pattern.find(key, settled, s, timeReached)) {
                if (f.windowStart().toEpochMilli() < trustFrom) {
                    continue;
                }
                String alertId = Alerts.alertIdOf(f);
                String before = reported.get(f.anchorEventId());
                if (!alertId.equals(before)) {
                    out.collect(Alerts.of(f, pattern.kind().ruleId(), pattern.version(s), before));
                    reported.put(f.anchorEventId(), alertId);
                }
            }
        }
        long cutoff = horizon == Long.MAX_VALUE ? Long.MAX_VALUE : horizon - pattern.retention(s).toMillis();
        int kept = 0;
        boolean droppedAny = false;
        for (E e : retained) {
            Envelope envelope = pattern.envelope(e);
            if (envelope.getOccurredAt().toEpochMilli() < cutoff) {
                history.remove(envelope.getEventId());
                reported.remove(envelope.getEventId());
                droppedAny = true;
            } else {
                kept++;
            }
        }
        if (kept == 0) {
            history.clear();
            reported.clear();
            droppedBefore.clear();
        } else if (droppedAny) {
            Long dropped = droppedBefore.value();
            droppedBefore.update(dropped == null ? cutoff : Math.max(dropped, cutoff));
        }
    }
}
