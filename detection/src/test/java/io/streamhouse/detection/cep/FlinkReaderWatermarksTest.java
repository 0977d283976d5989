package io.streamhouse.detection.cep;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.streaming.api.operators.source.TimestampsAndWatermarks;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReaderWatermarks} inside Flink's own source-reader output ({@code ProgressiveTimestampsAndWatermarks}, as a
 * Kafka source reader gets it): the reader's main output and one output per split (partition), periodic rounds every
 * 200 ms on a manual clock, and what leaves the reader downstream. Events are their own timestamps.
 */
class FlinkReaderWatermarksTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration IDLENESS = Duration.ofSeconds(10);
    private static final long HOUR = 3_600_000L;

    /**
     * Both partitions have events all along, b's an hour behind a's (it is being caught up on). The reader's main
     * output, which a Kafka reader never emits records through, must not carry a's watermark past b's.
     */
    @Test
    void theMainOutputNeverCarriesTheWatermarkPastALaggingPartition() {
        FlinkReader reader = new FlinkReader(ours(), "a", "b");
        for (int i = 0; i < 100; i++) {
            reader.event("a", HOUR + i * 60_000L);
            reader.event("b", i * 1_000L);
            reader.rounds(1, 200);
        }

        assertThat(reader.latest()).as("b's own watermark: its newest event time minus the bound")
                .isEqualTo(99_000L - BOUND.toMillis() - 1);
    }

    /**
     * A burst after a quiet spell: every partition has been idle; a's events come a round before b's, which are an
     * hour of event time older (a fast producer fills partitions a few milliseconds apart). Waking up, the reader
     * waits for b to show events or to be quiet for the idleness timeout again, so b's events are not late.
     */
    @Test
    void aBurstAfterAQuietSpellWaitsForEveryPartition() {
        FlinkReader reader = idleAfterAQuietSpell();

        for (int i = 1; i <= 3; i++) {
            reader.event("a", HOUR + i * HOUR);
            reader.rounds(1, 200);
        }
        long before = reader.latest();
        reader.event("b", HOUR + 60_000L);
        reader.rounds(1, 200);
        assertThat(reader.idle).isFalse();

        assertThat(before).as("the reader's watermark when b's first event of the burst comes")
                .isLessThan(HOUR + 60_000L);
        assertThat(reader.latest()).isEqualTo(HOUR + 60_000L - BOUND.toMillis() - 1);
    }

    /**
     * Woken by an event, a reader is active downstream at once, before its watermark rises: were it still marked idle,
     * the operators downstream would go on with the other readers' watermarks and find its events late.
     */
    @Test
    void anEventMakesAnIdleReaderActiveDownstreamAtOnce() {
        FlinkReader reader = idleAfterAQuietSpell();

        reader.event("a", 2 * HOUR);

        assertThat(reader.idle).isFalse();
        reader.rounds(1, 200);
        assertThat(reader.idle).as("still held by b, still active").isFalse();
    }

    /** A partition that gets nothing does not hold the reader back for longer than the idleness timeout. */
    @Test
    void aPartitionWithNoDataFollowsAfterTheIdlenessTimeout() {
        FlinkReader reader = new FlinkReader(ours(), "a", "b");
        for (int i = 0; i < 100; i++) {
            reader.event("a", HOUR + i * 1_000L);
            reader.rounds(1, 200);
        }

        assertThat(reader.latest()).isEqualTo(HOUR + 99_000L - BOUND.toMillis() - 1);
        assertThat(reader.idle).isFalse();
    }

    /**
     * The end of a burst: every partition quiet. After the idleness timeout the reader idles at its newest event time
     * minus the bound; after the bound it closes, at its newest event time, so the last events are evaluated without
     * waiting for more traffic.
     */
    @Test
    void aReaderQuietForTheBoundClosesAtItsNewestEventTime() {
        FlinkReader reader = new FlinkReader(ours(), "a", "b");
        reader.event("a", HOUR);
        reader.event("b", HOUR + 5_000L);
        reader.event("a", HOUR + 10_000L);
        reader.rounds(145, 200);

        assertThat(reader.idle).isTrue();
        assertThat(reader.latest()).as("29 s quiet: idle, not closed").isEqualTo(HOUR + 10_000L - BOUND.toMillis() - 1);

        reader.rounds(6, 200);

        assertThat(reader.latest()).as("30 s quiet (counted from the round that saw the last event): closed").isEqualTo(HOUR + 10_000L);
        assertThat(reader.idle).isTrue();
    }

    /**
     * After closing, an event older than the newest (more than a bound late in wall-clock time) leaves the watermark
     * where it was (the event is late, and reconciled downstream); newer events move it on, and the reader closes again
     * at its new newest event time.
     */
    @Test
    void aClosedReaderWakesAndClosesAgainAtItsNewNewestEventTime() {
        FlinkReader reader = new FlinkReader(ours(), "a", "b");
        reader.event("a", HOUR);
        reader.rounds(151, 200);
        assertThat(reader.latest()).isEqualTo(HOUR);

        reader.event("b", HOUR - 1_000L);
        reader.rounds(1, 200);
        assertThat(reader.idle).isFalse();
        assertThat(reader.watermarks).isSorted().last().isEqualTo(HOUR);

        reader.event("a", HOUR + 60_000L);
        reader.event("b", HOUR + 70_000L);
        reader.rounds(1, 200);
        assertThat(reader.latest()).isEqualTo(HOUR + 60_000L - BOUND.toMillis() - 1);

        reader.rounds(151, 200);
        assertThat(reader.latest()).isEqualTo(HOUR + 70_000L);
        assertThat(reader.idle).isTrue();
    }

    /**
     * A restore on a backlog: Flink creates a split's output only when the reader gets the split's first records, and a
     * fetch batch of one partition spans hours of a burst's event time. Without settling, the first partition served
     * carries the reader's watermark hours past the other, whose events then all come late.
     */
    @Test
    void aReaderSettlesBeforeItsWatermarkMovesSoAPartitionServedSecondIsNotLate() {
        FlinkReader reader = new FlinkReader(settling(), "a");
        for (int i = 0; i < 10; i++) {
            reader.event("a", HOUR + i * 10 * 60_000L);
            reader.rounds(1, 200);
        }
        reader.addSplit("b");
        reader.event("b", 60_000L);
        reader.rounds(1, 200);

        assertThat(reader.watermarks).as("nothing emitted while settling").isEmpty();

        for (int i = 0; i < 60; i++) {
            reader.event("b", 60_000L + i * 1_000L);
            reader.rounds(1, 200);
        }
        assertThat(reader.latest()).as("settled: b, behind, holds the reader back")
                .isEqualTo(60_000L + 59_000L - BOUND.toMillis() - 1);
    }

    /** Settling holds watermarks only: a reader whose partitions get no event still idles after the timeout. */
    @Test
    void aSettlingReaderWithoutEventsStillIdles() {
        FlinkReader reader = new FlinkReader(settling(), "a", "b");
        reader.rounds(1, 200);
        reader.idle = false;

        reader.rounds(60, 200);

        assertThat(reader.idle).isTrue();
        assertThat(reader.watermarks).isEmpty();
    }

    /** The same without settling: a's watermark leaves the reader before b has a generator, and b's events are late. */
    @Test
    void withoutSettlingThePartitionServedFirstRunsAhead() {
        FlinkReader reader = new FlinkReader(ours(), "a");
        for (int i = 0; i < 10; i++) {
            reader.event("a", HOUR + i * 10 * 60_000L);
            reader.rounds(1, 200);
        }
        reader.addSplit("b");

        assertThat(reader.latest()).isGreaterThan(60_000L);
    }

    /** A reader whose two partitions had an event at {@link #HOUR} and have been quiet for 20 s since: idle. */
    private static FlinkReader idleAfterAQuietSpell() {
        FlinkReader reader = new FlinkReader(ours(), "a", "b");
        reader.event("a", HOUR);
        reader.event("b", HOUR);
        reader.rounds(100, 200);
        assertThat(reader.idle).isTrue();
        return reader;
    }

    private static ReaderWatermarks<Long> ours() {
        return new ReaderWatermarks<>(BOUND, IDLENESS, false, e -> e, e -> e >= 0);
    }

    private static ReaderWatermarks<Long> settling() {
        return new ReaderWatermarks<>(BOUND, IDLENESS, EventTimeWatermarks.SETTLE, false, e -> e, e -> e >= 0);
    }

    /** A source reader's output as Flink builds it, with split outputs created on demand like a Kafka reader does. */
    static final class FlinkReader implements PushingAsyncDataInput.DataOutput<Long> {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final List<Long> watermarks = new ArrayList<>();
        final TimestampsAndWatermarks<Long> logic;
        final ReaderOutput<Long> main;
        final Map<String, SourceOutput<Long>> splits = new HashMap<>();
        boolean idle;

        FlinkReader(WatermarkStrategy<Long> strategy, String... splitIds) {
            var task = UnregisteredMetricGroups.createUnregisteredTaskMetricGroup();
            logic = TimestampsAndWatermarks.createProgressiveEventTimeLogic(strategy, task, null, 200, clock, clock,
                    task.getIOMetricGroup());
            main = logic.createMainOutput(this, new TimestampsAndWatermarks.WatermarkUpdateListener() {
                @Override
                public void updateIdle(boolean isIdle) {
                }

                @Override
                public void updateCurrentEffectiveWatermark(long watermark) {
                }

                @Override
                public void updateCurrentSplitWatermark(String splitId, long watermark) {
                }

                @Override
                public void updateCurrentSplitIdle(String splitId, boolean idle) {
                }

                @Override
                public void splitFinished(String splitId) {
                }
            });
            for (String id : splitIds) {
                splits.put(id, main.createOutputForSplit(id));
            }
        }

        void event(String split, long timestamp) {
            splits.get(split).collect(timestamp);
        }

        /** A split whose first records come now: its output is created now, as a Kafka reader does. */
        void addSplit(String id) {
            splits.put(id, main.createOutputForSplit(id));
        }

        void rounds(int count, long everyMs) {
            for (int i = 0; i < count; i++) {
                clock.advanceTime(Duration.ofMillis(everyMs));
                logic.emitImmediateWatermark(clock.absoluteTimeMillis());
            }
        }

        long latest() {
            return watermarks.isEmpty() ? Long.MIN_VALUE : watermarks.get(watermarks.size() - 1);
        }

        @Override
        public void emitRecord(StreamRecord<Long> streamRecord) {
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            watermarks.add(watermark.getTimestamp());
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus watermarkStatus) {
            idle = watermarkStatus.isIdle();
        }

        @Override
        public void emitLatencyMarker(LatencyMarker latencyMarker) {
        }

        @Override
        public void emitRecordAttributes(RecordAttributes recordAttributes) {
        }

        @Override
        public void emitWatermark(org.apache.flink.runtime.event.WatermarkEvent watermark) {
        }
    }
}
