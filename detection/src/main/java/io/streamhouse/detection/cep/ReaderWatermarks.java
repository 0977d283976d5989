package io.streamhouse.detection.cep;

import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.util.clock.RelativeClock;
import org.apache.flink.util.clock.SystemClock;

import java.io.Serial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Bounded out-of-orderness per partition, with idleness decided for a source reader's partitions together, so the
 * watermark a partition reached before going quiet is never lost.
 *
 * <p>Why not {@link WatermarkStrategy#withIdleness}: a Kafka source reader combines its partitions' watermarks (the
 * minimum over those not idle), and in Flink 2.1 a reader whose partitions have all gone idle emits nothing more — the
 * maximum they reached is dropped (FLINK-38454, fixed in 2.2, which the Kafka connector and Iceberg's Flink runtime
 * used here do not support yet). With per-partition idleness that loses a watermark whenever the partition that had
 * the data goes idle in the same periodic round as (or before) the quiet partitions holding it back: after a start or
 * a restore with the events already waiting, every partition's idleness timer starts together, and the last events'
 * watermark never left the reader — so a pending match was not evaluated until the next event on that partition, and
 * on a quiet system not at all (the flaky {@code CepEngineIT} restore test showed it: the source emitted the large
 * payment's watermark twice; the reader emitted it never).
 *
 * <p>Here, a partition with no event for the idleness timeout does not go idle by itself: it <em>follows</em>, emitting
 * the highest watermark of its reader's partitions. That leaves the reader's minimum to the partitions that have data,
 * as idleness would. Only when every partition of the reader has been quiet for the timeout, and all have emitted that
 * same highest watermark (so the reader has emitted it), do they all go idle — and the reader with them, no longer
 * holding back the other readers. An event on any of them makes the reader active again. Records without event time
 * (dead letters: the assigner gives {@link Long#MIN_VALUE}) are no activity.
 *
 * <p>The partitions of one reader are the generators this strategy creates on that reader's task thread, in one
 * subtask's deserialised copy of the strategy; a generator the reader stopped calling (a removed split) no longer
 * counts once it has missed a few periodic rounds. A partition never emits a lower watermark than it did before (one
 * that follows and then gets an older event stays where it was; that event is late, as it would be after idleness).
 */
final class ReaderWatermarks<T> implements WatermarkStrategy<T> {
    @Serial
    private static final long serialVersionUID = 1L;

    private final long boundMs;
    private final long idlenessNanos;
    private final boolean perEvent;
    private final SerializableTimestamp<T> timestamp;
    private final SerializablePredicate<T> hasEventTime;
    private transient ThreadLocal<Reader> readers;

    interface SerializableTimestamp<T> extends ToLongFunction<T>, java.io.Serializable {
    }

    interface SerializablePredicate<T> extends Predicate<T>, java.io.Serializable {
    }

    /**
     * @param bound        the maximum out-of-orderness: the watermark is the highest event time seen minus this, minus 1 ms
     * @param idleness     a partition with no event for this long follows the others; all of them quiet, the reader idles
     * @param perEvent     also emit after every event that raises the watermark (not only periodically)
     * @param timestamp    the event time of a record
     * @param hasEventTime whether a record carries event time (others neither move the watermark nor count as activity)
     */
    ReaderWatermarks(Duration bound, Duration idleness, boolean perEvent, SerializableTimestamp<T> timestamp,
                     SerializablePredicate<T> hasEventTime) {
        if (bound.isNegative() || idleness.isNegative() || idleness.isZero()) {
            throw new IllegalArgumentException("bound must not be negative and idleness must be positive");
        }
        this.boundMs = bound.toMillis();
        this.idlenessNanos = idleness.toNanos();
        this.perEvent = perEvent;
        this.timestamp = timestamp;
        this.hasEventTime = hasEventTime;
    }

    @Override
    public TimestampAssigner<T> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
        return (event, recordTimestamp) -> hasEventTime.test(event) ? timestamp.applyAsLong(event) : Long.MIN_VALUE;
    }

    @Override
    public WatermarkGenerator<T> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
        RelativeClock clock = context == null ? SystemClock.getInstance() : context.getInputActivityClock();
        return new Partition(readerOfThisThread(), clock);
    }

    private synchronized Reader readerOfThisThread() {
        if (readers == null) {
            readers = ThreadLocal.withInitial(() -> new Reader());
        }
        return readers.get();
    }

    /** The partitions (generators) of one source reader and the highest watermark any of them reached. */
    final class Reader {
        /** Rounds a partition may miss before it is taken for removed (every live one is called once a round). */
        private static final long STALE_AFTER_ROUNDS = 3L;
        private final List<Partition> partitions = new ArrayList<>();
        private long highest = Long.MIN_VALUE;
        private long rounds;

        private boolean allQuietAndEmittedHighest() {
            for (var it = partitions.iterator(); it.hasNext(); ) {
                Partition p = it.next();
                if (rounds - p.rounds > STALE_AFTER_ROUNDS) {
                    it.remove();
                    p.listed = false;
                } else if (!p.quiet || p.lastEmitted != highest) {
                    return false;
                }
            }
            return true;
        }
    }

    final class Partition implements WatermarkGenerator<T> {
        private final Reader reader;
        private final RelativeClock clock;
        private long maxTimestamp;
        /** Events with event time seen, and as of the last round: the clock is read once a round, not per event. */
        private long activity;
        private long activitySeen;
        private long lastActivityNanos;
        private long rounds;
        private long lastEmitted = Long.MIN_VALUE;
        private boolean quiet;
        private boolean listed = true;

        Partition(Reader reader, RelativeClock clock) {
            this.reader = reader;
            this.clock = clock;
            this.maxTimestamp = Long.MIN_VALUE + boundMs + 1;
            this.lastActivityNanos = clock.relativeTimeNanos();
            this.rounds = reader.rounds;
            reader.partitions.add(this);
        }

        @Override
        public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
            if (!hasEventTime.test(event)) {
                return;
            }
            activity++;
            quiet = false;
            if (eventTimestamp > maxTimestamp) {
                maxTimestamp = eventTimestamp;
                // The reader cannot idle before every partition has emitted this: it is the highest now.
                reader.highest = Math.max(reader.highest, own());
                if (perEvent) {
                    emit(output, own());
                }
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            rounds = Math.max(rounds, reader.rounds - 1) + 1;
            reader.rounds = Math.max(reader.rounds, rounds);
            if (!listed) {
                listed = true;
                reader.partitions.add(this);
            }
            long now = clock.relativeTimeNanos();
            if (activity != activitySeen) {
                activitySeen = activity;
                lastActivityNanos = now;
            }
            quiet = now - lastActivityNanos >= idlenessNanos;
            if (quiet && reader.allQuietAndEmittedHighest()) {
                output.markIdle();
                return;
            }
            emit(output, quiet ? Math.max(own(), reader.highest) : own());
        }

        private long own() {
            return maxTimestamp - boundMs - 1;
        }

        private void emit(WatermarkOutput output, long watermark) {
            // never above reader.highest: own() raised it when the event came, and a quiet partition follows it
            lastEmitted = Math.max(lastEmitted, watermark);
            output.emitWatermark(new Watermark(lastEmitted));
        }
    }
}
