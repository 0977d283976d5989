package io.streamhouse.detection.cep;

import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.List;

/**
 * Before a pattern's CEP operator(s) (uid {@code repeats-<pattern>}, keyed by subject): a fact whose event id this
 * subject already passed on is dropped, so an event delivered twice (a producer's retry outside idempotence, a record
 * published again, a replayed source) counts once, as the pure functions count it. Flink CEP's NFA would take the
 * repeat as another event: a card test out of two small payments, one of them twice.
 *
 * <p>A repeat carries its original's event time, so it can reach the CEP operator only while the watermark is before
 * that time; after that the CEP operator drops it as late and the reconciliation, which counts each event id once,
 * decides. So a subject's ids are kept by event time only until the watermark passes it: one map entry per event time
 * (the ids at that millisecond) and one event-time timer per entry, which removes it without iterating the map. A fact
 * already behind this step's watermark is passed on unrecorded (the CEP operator drops it as late). Repeats dropped are
 * counted (metric {@code repeatedFacts}).
 */
final class RepeatedFacts extends KeyedProcessFunction<String, StampedFact, StampedFact> {
    static final String STATE = "repeat-ids";

    private transient MapState<Long, List<String>> pending;
    private transient Counter repeated;

    @Override
    public void open(OpenContext openContext) {
        pending = getRuntimeContext().getMapState(new MapStateDescriptor<>(STATE, Types.LONG, Types.LIST(Types.STRING)));
        repeated = getRuntimeContext().getMetricGroup().counter("repeatedFacts");
    }

    @Override
    public void processElement(StampedFact fact, Context ctx, Collector<StampedFact> out) throws Exception {
        long at = fact.getFact().getOccurredAtMs();
        if (at <= ctx.timerService().currentWatermark()) {
            out.collect(fact);
            return;
        }
        String id = fact.getFact().getEventId();
        List<String> ids = pending.get(at);
        if (ids == null) {
            ids = new ArrayList<>(1);
            ctx.timerService().registerEventTimeTimer(at);
        } else if (ids.contains(id)) {
            repeated.inc();
            return;
        } else {
            ids = new ArrayList<>(ids);
        }
        ids.add(id);
        pending.put(at, ids);
        out.collect(fact);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<StampedFact> out) throws Exception {
        pending.remove(timestamp);
    }
}
