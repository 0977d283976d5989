package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Between the stamping step and the parcel SLA's CEP operators (engine {@code cep}, uid
 * {@code deadline-parcel-sla}): passes every stamped scan on and, for a parcel's latest out-for-delivery scan, emits a
 * synthetic {@value #KIND} fact when event time passes an out-for-delivery scan's deadline ({@code promisedBy + grace}, under the
 * thresholds stamped on the scan), so the library reports a parcel never delivered at its deadline,
 * not when its partial match times out. Every such scan arms its deadline; whether it still counts (no delivery,
 * not sent out again before it) is the pattern's to decide. The deadline fact is stamped {@link #deadlineAt}, never before the scan;
 * its event id is the scan's plus {@value #SUFFIX} (it sorts after the scan at equal times) and {@code ref} is the
 * scan's id.
 *
 * <p>Assumes the CEP operators after it see the same watermark: the timer fires when the watermark reaches the
 * deadline, so the fact it emits is not behind the watermark the CEP operator had before. A scan behind this step's
 * watermark is late for the CEP operator too (it drops it) and arms nothing. State: the out-for-delivery scans with a
 * pending deadline by deadline (Avro {@link StampedFact}; of two with the same deadline the later scan, the other one
 * having been sent out again), and one event-time timer per deadline; both go when the timer fires.
 */
final class ParcelDeadlines extends KeyedProcessFunction<String, StampedFact, StampedFact> {
    static final String KIND = "deadline";
    static final String SUFFIX = "/deadline";
    private static final LibraryPatterns.ByEventId ORDER = new LibraryPatterns.ByEventId();

    private final LibraryPatterns.StampedSettings settings = new LibraryPatterns.StampedSettings(PatternSettings.Kind.PARCEL_SLA);
    private transient MapState<Long, StampedFact> pending;

    @Override
    public void open(OpenContext openContext) {
        pending = getRuntimeContext().getMapState(new MapStateDescriptor<>("parcel-deadlines", Types.LONG,
                new AvroTypeInfo<>(StampedFact.class)));
    }

    @Override
    public void processElement(StampedFact scan, Context ctx, Collector<StampedFact> out) throws Exception {
        out.collect(scan);
        Optional<Long> at = deadlineAt(scan, settings.of(scan));
        if (at.isEmpty() || scan.getFact().getOccurredAtMs() <= ctx.timerService().currentWatermark()) {
            return;
        }
        StampedFact same = pending.get(at.get());
        if (same == null || ORDER.compare(same, scan) < 0) {
            pending.put(at.get(), scan);
        }
        ctx.timerService().registerEventTimeTimer(at.get());
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<StampedFact> out) throws Exception {
        StampedFact scan = pending.get(timestamp);
        if (scan == null) {
            return;
        }
        pending.remove(timestamp);
        out.collect(deadlineFact(scan, timestamp));
    }

    private static StampedFact deadlineFact(StampedFact scan, long at) {
        CepFact f = scan.getFact();
        return new StampedFact(scan.getSubject(), CepFact.newBuilder().setEventId(f.getEventId() + SUFFIX)
                .setOccurredAtMs(at).setKind(KIND).setRef(f.getEventId()).setDueAtMs(f.getDueAtMs()).build(),
                scan.getThresholds());
    }

    /**
     * The id of the "never delivered" alert the deadline pattern emitted for this delivery match's out-for-delivery
     * scan before the delivery, if it did: the scan's deadline fact came before the delivery (in the CEP operators'
     * order) and within {@code within} of the scan (flink-cep 2.1.1 times a partial match out when
     * {@code time - start >= within}). Nothing else can have come between: the delivery match has no later scan and no
     * earlier delivery after the out-for-delivery scan. Derived from the match alone, so the delivery operator needs
     * no state to link the revision.
     */
    static Optional<String> neverDeliveredBefore(Map<String, List<StampedFact>> match) {
        List<StampedFact> outs = match.get(LibraryPatterns.OUT);
        List<StampedFact> deliveries = match.get(LibraryPatterns.DELIVERED);
        if (outs == null || outs.isEmpty() || deliveries == null || deliveries.isEmpty()) {
            return Optional.empty();
        }
        StampedFact scan = outs.get(0);
        PatternSettings s = Thresholds.settings(scan.getThresholds(), PatternSettings.Kind.PARCEL_SLA);
        Optional<Long> at = deadlineAt(scan, s);
        if (at.isEmpty() || at.get() - scan.getFact().getOccurredAtMs() >= LibraryPatterns.PARCEL_MAX_RETENTION.toMillis()) {
            return Optional.empty();
        }
        StampedFact deadline = deadlineFact(scan, at.get());
        if (ORDER.compare(deadline, deliveries.get(0)) >= 0) {
            return Optional.empty();
        }
        return new ParcelSlaPattern().find(scan.getSubject(), List.of(scan.getFact(), deadline.getFact()), s,
                        java.time.Instant.ofEpochMilli(at.get())).stream().findFirst().map(Alerts::alertIdOf);
    }

    /**
     * When an out-for-delivery scan's deadline fact is due: the first millisecond after {@code promisedBy + grace}
     * (a delivery at the deadline is in time), or the scan's own time when it went out after its deadline.
     */
    static Optional<Long> deadlineAt(StampedFact scan, PatternSettings s) {
        return new ParcelSlaPattern().deadline(scan.getFact(), s)
                .map(d -> Math.max(d.toEpochMilli(), scan.getFact().getOccurredAtMs()));
    }

    /** Whether {@code fact} is the deadline fact of out-for-delivery scan {@code out}. */
    static boolean isDeadlineOf(StampedFact fact, StampedFact out) {
        return KIND.equals(fact.getFact().getKind()) && out.getFact().getEventId().equals(fact.getFact().getRef());
    }
}
