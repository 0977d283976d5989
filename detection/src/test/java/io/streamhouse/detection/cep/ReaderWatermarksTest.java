package io.streamhouse.detection.cep;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkOutputMultiplexer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.clock.ManualClock;
import org.apache.flink.util.clock.RelativeClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One source reader as Flink 2.1 runs it: a generator per partition (split), combined by Flink's own
 * {@link WatermarkOutputMultiplexer} (the minimum over the partitions not idle), periodic rounds every 200 ms on a
 * manual clock. Events are their own timestamps; a negative one is a dead letter (no event time).
 */
class ReaderWatermarksTest {
    private static final Duration IDLENESS = Duration.ofMillis(200);
    private static final long[] JITTERED = {100, 198, 201, 200, 200, 200, 200};

    /**
     * The restore of CepEngineIT: the events are waiting when the reader starts, so every partition's idleness timer
     * starts together; rounds 100 ms after the start, then 198 ms and 201 ms apart (jitter on a loaded machine), then
     * every 200 ms. The partition with the events is quiet in the same round as the others.
     */
    @Test
    void theLastEventsWatermarkLeavesTheReaderWhenItsPartitionsGoQuietTogether() {
        Reader reader = new Reader(ours(), "a", "b", "c");
        reader.event("a", 120_000);
        reader.event("a", 180_000);

        reader.rounds(JITTERED);

        assertThat(reader.watermarks).contains(179_999L);
        assertThat(reader.idle).isTrue();
    }

    /**
     * Why not {@code withIdleness}: under the same schedule Flink 2.1's reader never emits the watermark — the partition
     * with the events goes idle in the round the quiet ones do, and an all-idle reader emits nothing (FLINK-38454, fixed
     * in Flink 2.2). Should this fail after an upgrade, {@link ReaderWatermarks} can go.
     */
    @Test
    void flinks21IdlenessLosesThatWatermark() {
        WatermarkStrategy<Long> flink = WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ZERO)
                .withTimestampAssigner((e, ts) -> e).withIdleness(IDLENESS);
        Reader reader = new Reader(flink, "a", "b", "c");
        reader.event("a", 120_000);
        reader.event("a", 180_000);

        reader.rounds(JITTERED);

        assertThat(reader.watermarks).doesNotContain(179_999L);
        assertThat(reader.idle).isTrue();
    }

    @Test
    void aQuietPartitionFollowsSoItHoldsNothingBack() {
        Reader reader = new Reader(ours(), "a", "b");
        reader.rounds(1, 200);
        for (long t = 1_000; t <= 5_000; t += 1_000) {
            reader.event("a", t);
            reader.rounds(1, 200);
        }

        assertThat(reader.watermarks).last().isEqualTo(4_999L);
        assertThat(reader.idle).isFalse();
    }

    @Test
    void aPartitionWithDataHoldsTheReaderBackUntilItIsQuiet() {
        Reader reader = new Reader(ours(), "a", "b");
        reader.event("a", 10_000);
        reader.event("b", 2_000);
        reader.rounds(1, 100);

        assertThat(reader.watermarks).last().isEqualTo(1_999L);

        reader.event("a", 11_000);
        reader.rounds(1, 100);
        reader.event("a", 12_000);
        reader.rounds(1, 100);

        assertThat(reader.watermarks).last().as("b quiet for 200 ms now: it follows a").isEqualTo(11_999L);
    }

    @Test
    void aReaderIdlesOnlyOnceAllItsPartitionsAreQuietAndAnEventMakesItActiveAgain() {
        Reader reader = new Reader(ours(), "a", "b");
        reader.event("a", 5_000);
        reader.rounds(1, 100);
        assertThat(reader.idle).isFalse();

        reader.rounds(5, 200);
        assertThat(reader.idle).isTrue();
        assertThat(reader.watermarks).last().isEqualTo(4_999L);

        reader.event("b", 9_000);
        reader.rounds(1, 100);
        assertThat(reader.watermarks).as("a, woken, holds the reader where it was until it is quiet again")
                .last().isEqualTo(4_999L);

        reader.rounds(1, 200);
        assertThat(reader.watermarks).as("a quiet for the timeout: it follows b").last().isEqualTo(8_999L);
        assertThat(reader.idle).isFalse();
        assertThat(reader.fromMain).as("the main output carries the reader's idleness, and its newest event time once"
                        + " every partition has been quiet for the bound (here the idleness timeout: the bound is 0)")
                .containsOnly("idle", "active", "watermark 5000", "watermark 9000")
                .containsSubsequence("idle", "watermark 5000", "idle", "active", "idle", "watermark 9000");
    }

    @Test
    void deadLettersAreNoActivityAndNoEventTime() {
        Reader reader = new Reader(ours(), "a", "b");
        reader.event("a", 5_000);
        reader.rounds(3, 200);
        for (int i = 0; i < 5; i++) {
            reader.event("a", -1);
            reader.event("b", -1);
            reader.rounds(1, 200);
        }

        assertThat(reader.idle).isTrue();
        assertThat(reader.watermarks).last().isEqualTo(4_999L);
    }

    @Test
    void aPartitionNoLongerCalledStopsCountingAndTheReaderStillIdles() {
        Reader reader = new Reader(ours(), "a", "b");
        reader.event("a", 5_000);
        reader.rounds(1, 100);
        reader.remove("b");

        reader.rounds(8, 200);

        assertThat(reader.idle).isTrue();
        assertThat(reader.watermarks).last().isEqualTo(4_999L);
    }

    @Test
    void eachReaderThreadHasItsOwnPartitions() throws Exception {
        ReaderWatermarks<Long> strategy = ours();
        Reader here = new Reader(strategy, "a");
        // Another subtask's reader, with a partition that never gets an event: it must not hold this one back.
        CompletableFuture.runAsync(() -> new Reader(strategy, "x").rounds(1, 0)).get();
        here.event("a", 3_000);
        here.rounds(2, 200);

        assertThat(here.watermarks).containsExactly(2_999L);
        assertThat(here.idle).as("quiet, and no partition of another reader keeps it active").isTrue();
    }

    @Test
    void aFollowingPartitionThatGetsAnOlderEventDoesNotGoBack() {
        Reader reader = new Reader(ours(), "a", "b");
        reader.event("a", 10_000);
        reader.rounds(3, 200);
        reader.event("a", 11_000);
        reader.rounds(1, 200);
        reader.event("b", 1_000);
        reader.rounds(1, 200);

        assertThat(reader.watermarks).isSorted().last().isEqualTo(10_999L);
    }

    private static ReaderWatermarks<Long> ours() {
        return new ReaderWatermarks<>(Duration.ZERO, IDLENESS, false, e -> e, e -> e >= 0);
    }

    /** A source reader: partitions, the multiplexer over them, and what it emitted downstream. */
    private static final class Reader implements WatermarkOutput {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final List<Long> watermarks = new ArrayList<>();
        final Map<String, WatermarkGenerator<Long>> partitions = new LinkedHashMap<>();
        final WatermarkOutputMultiplexer multiplexer = new WatermarkOutputMultiplexer(this);
        /** The reader's main output, created first as Flink does; a Kafka reader emits no record through it. */
        final WatermarkGenerator<Long> main;
        final List<String> fromMain = new ArrayList<>();
        boolean idle;

        Reader(WatermarkStrategy<Long> strategy, String... ids) {
            WatermarkGeneratorSupplier.Context context = new WatermarkGeneratorSupplier.Context() {
                @Override
                public MetricGroup getMetricGroup() {
                    return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
                }

                @Override
                public RelativeClock getInputActivityClock() {
                    return clock;
                }
            };
            main = strategy.createWatermarkGenerator(context);
            for (String id : ids) {
                multiplexer.registerNewOutput(id);
                partitions.put(id, strategy.createWatermarkGenerator(context));
            }
        }

        void event(String partition, long timestamp) {
            partitions.get(partition).onEvent(timestamp, timestamp < 0 ? Long.MIN_VALUE : timestamp,
                    multiplexer.getImmediateOutput(partition));
        }

        void remove(String partition) {
            partitions.remove(partition);
            multiplexer.unregisterOutput(partition);
        }

        void rounds(long... intervalsMs) {
            for (long ms : intervalsMs) {
                rounds(1, ms);
            }
        }

        /** {@code count} periodic rounds, the clock advancing {@code everyMs} before each. */
        void rounds(int count, long everyMs) {
            for (int i = 0; i < count; i++) {
                clock.advanceTime(Duration.ofMillis(everyMs));
                partitions.forEach((id, g) -> g.onPeriodicEmit(multiplexer.getDeferredOutput(id)));
                multiplexer.onPeriodicEmit();
                main.onPeriodicEmit(new WatermarkOutput() {
                    @Override
                    public void emitWatermark(Watermark watermark) {
                        fromMain.add("watermark " + watermark.getTimestamp());
                    }

                    @Override
                    public void markIdle() {
                        fromMain.add("idle");
                    }

                    @Override
                    public void markActive() {
                        fromMain.add("active");
                    }
                });
            }
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            watermarks.add(watermark.getTimestamp());
            idle = false;
        }

        @Override
        public void markIdle() {
            idle = true;
        }

        @Override
        public void markActive() {
            idle = false;
        }
    }
}
