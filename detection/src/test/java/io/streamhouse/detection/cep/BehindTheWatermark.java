package io.streamhouse.detection.cep;

import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Watermarks for facts given in an arrival order (a bounded collection without timestamps): each fact gets its event
 * time as timestamp, and the watermark follows the newest event time seen — emitted <i>before</i> the fact
 * ({@link #everyFact}: every fact arrives at or behind the watermark, late whatever the order) or <i>after</i> it
 * ({@link #perFact}: a fact is late only when a newer one came before it), optionally from a starting watermark
 * emitted before the first fact. The input's own end-of-input watermark passes through.
 */
final class BehindTheWatermark extends AbstractStreamOperator<StampedFact>
        implements OneInputStreamOperator<StampedFact, StampedFact> {
    private final boolean before;
    private long emitted;
    private boolean started;

    private BehindTheWatermark(boolean before, long start) {
        this.before = before;
        this.emitted = start;
    }

    /** Every fact behind the watermark, in the order given. */
    static DataStream<StampedFact> of(DataStream<StampedFact> facts) {
        return everyFact(facts, Long.MIN_VALUE);
    }

    /** Every fact behind the watermark, which starts at {@code start} (epoch ms) before the first fact. */
    static DataStream<StampedFact> everyFact(DataStream<StampedFact> facts, long start) {
        return facts.transform("behind the watermark", new AvroTypeInfo<>(StampedFact.class),
                new BehindTheWatermark(true, start)).setParallelism(1);
    }

    /** The watermark at the newest event time after each fact: a fact older than one before it is late. */
    static DataStream<StampedFact> perFact(DataStream<StampedFact> facts) {
        return facts.transform("watermark per fact", new AvroTypeInfo<>(StampedFact.class),
                new BehindTheWatermark(false, Long.MIN_VALUE)).setParallelism(1);
    }

    @Override
    public void processElement(StreamRecord<StampedFact> element) {
        if (!started) {
            started = true;
            if (emitted != Long.MIN_VALUE) {
                output.emitWatermark(new Watermark(emitted));
            }
        }
        long at = element.getValue().getFact().getOccurredAtMs();
        if (before) {
            advance(at);
        }
        output.collect(element.replace(element.getValue(), at));
        if (!before) {
            advance(at);
        }
    }

    private void advance(long at) {
        if (at > emitted) {
            emitted = at;
            output.emitWatermark(new Watermark(at));
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() > emitted) {
            emitted = mark.getTimestamp();
            super.processWatermark(mark);
        }
    }
}
