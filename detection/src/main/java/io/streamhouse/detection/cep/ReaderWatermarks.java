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
 * watermark a partition reached before going quiet is never lost, and a partition is taken for quiet only after it has
 * had the idleness timeout to show its events.
 *
 * <p>Why not {@link WatermarkStrategy#withIdleness}: a Kafka source reader combines its partitions' watermarks (the
 * minimum over those not idle), and in Flink 2.1 a reader whose partitions have all gone idle emits nothing more — the
 * maximum they reached is dropped (FLINK-38454, fixed in 2.2, which the Kafka connector and Iceberg's Flink runtime
 * used here do not support yet).
 *
 * <p>Here, a partition with no event for the idleness timeout does not go idle by itself: it <em>follows</em>, emitting
 * the highest watermark of its reader's partitions. That leaves the reader's minimum to the partitions that have data,
 * as idleness would. Only when every partition of the reader has been quiet for the timeout, and all have emitted that
 * same highest watermark (so the reader has emitted it), do they all go idle — and the reader with them, no longer
 * holding back the other readers. Records without event time (dead letters: the assigner gives {@link Long#MIN_VALUE})
 * are no activity.
 *
 * <p>A reader holds its watermark for a settling time after its first event. Flink creates a partition's output only
 * when the reader gets the partition's first records, so until then that partition cannot hold the reader back: after a
 * restore or a start on a backlog, the first partition served (a fetch batch of one partition spans hours of a burst's
 * event time) would carry the reader's watermark past every partition still waiting for its first batch, and their
 * events would all be late. While settling, no partition emits a watermark (so the reader reports none for alignment
 * either).
 *
 * <p>A reader whose partitions have all been quiet for the bound (or the idleness timeout, if longer) <em>closes</em>: its
 * main output emits the newest event time the reader has seen, so the events of the last bound of event time are
 * evaluated without waiting for traffic that may not come (the end of a burst, a quiet night). The bound is there for
 * events that arrive out of order while traffic flows; after a bound of quiet, an event older than the newest one is
 * late by more than the bound in wall-clock time too, and it is reconciled like any late event. A partition paused by
 * alignment or backpressure is not quiet: Flink's input-activity clock stands still for it.
 *
 * <p>An event on an idle reader wakes every partition of it: each must again show events, or be quiet for the timeout,
 * before it follows. A fast producer fills a topic's partitions milliseconds apart; without that, the partitions whose
 * first events of a burst come a periodic round after another's would follow it and find their own events late.
 * A partition that is merely behind (its records wait while the consumer returns another partition's batch) is not
 * quiet for long: the job aligns its sources' watermarks ({@link EventTimeWatermarks}), which pauses the partitions
 * ahead so that the ones behind are read.
 *
 * <p>The partitions of one reader are the generators this strategy creates on that reader's task thread, in one
 * subtask's deserialised copy of the strategy. The first is the reader's main output, which a Kafka reader never emits
 * records through: it counts only once it has had an event, and until then emits nothing (were it to follow, the
 * highest watermark would leave the reader past every partition still behind). A generator the reader stopped calling
 * (a removed split) no longer counts once it has missed a few periodic rounds. A partition never emits a lower
 * watermark than it did before (one that follows and then gets an older event stays where it was; that event is late,
 * as it would be after idleness).
 */
final class ReaderWatermarks<T> implements WatermarkStrategy<T> {
    @Serial
    private static final long serialVersionUID = 1L;

    private final long boundMs;
    private final long idlenessNanos;
    private final long closeAfterNanos;
    private final long settleNanos;
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
     * @param idleness     a partition with no event for this long follows the others; all of them quiet, the reader idles;
     *                     all of them quiet for the bound (or this, if longer), the reader closes (its watermark reaches its
     *                     newest event time)
     * @param perEvent     also emit after every event that raises the watermark (not only periodically)
     * @param timestamp    the event time of a record
     * @param hasEventTime whether a record carries event time (others neither move the watermark nor count as activity)
     */
    ReaderWatermarks(Duration bound, Duration idleness, boolean perEvent, SerializableTimestamp<T> timestamp,
                     SerializablePredicate<T> hasEventTime) {
        this(bound, idleness, Duration.ZERO, perEvent, timestamp, hasEventTime);
    }

    /**
     * As above, with a reader's watermark held for {@code settle} after its first event (see the class comment).
     */
    ReaderWatermarks(Duration bound, Duration idleness, Duration settle, boolean perEvent,
                     SerializableTimestamp<T> timestamp, SerializablePredicate<T> hasEventTime) {
        if (bound.isNegative() || idleness.isNegative() || idleness.isZero() || settle.isNegative()) {
            throw new IllegalArgumentException("bound and settle must not be negative and idleness must be positive");
        }
        this.settleNanos = settle.toNanos();
        this.boundMs = bound.toMillis();
        this.idlenessNanos = idleness.toNanos();
        this.closeAfterNanos = Math.max(idlenessNanos, bound.toNanos());
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
        /** The newest event time any of its partitions has seen, and the watermark the reader last closed at. */
        private long newest = Long.MIN_VALUE;
        private long closedAt = Long.MIN_VALUE;
        /** When the first event came, on the reader's clock (its main output's), and whether settling is over. */
        private RelativeClock clock;
        private long firstEventNanos;
        private boolean anyEvent;
        private boolean settled = settleNanos == 0;
        private long rounds;
        /** No generator created yet: the next one is the reader's main output. */
        private boolean first = true;
        /** Its partitions have marked it idle, and no event has come since. */
        private boolean idle;

        /** The reader's main output, as its generator was last given it: the one line straight to the reader's output. */
        private WatermarkOutput main;

        /**
         * An event on an idle reader: every partition must show events, or be quiet for the timeout, again, and the
         * reader is active downstream at once. (Through the partitions' multiplexer it would be only once its watermark
         * rose, and until then the readers downstream of it would go on without it, making its partitions' events late.)
         */
        private void wake() {
            idle = false;
            for (Partition p : partitions) {
                p.quiet = false;
                p.activitySeen = p.activity;
                p.lastActivityNanos = p.clock.relativeTimeNanos();
            }
            if (main != null) {
                main.markActive();
            }
        }

        /** Every partition quiet: the reader idles; the main output, which counts only the partitions' idleness, too. */
        private void idle() {
            idle = true;
            if (main != null) {
                main.markIdle();
            }
        }

        /**
         * Once every partition has been quiet for {@code closeAfter} (the reader idle), the main output emits the newest
         * event time: straight to the reader's output, past the partitions' bound.
         */
        private void closeIfQuiet(WatermarkOutput mainOutput) {
            if (!idle || newest <= closedAt || partitions.isEmpty()) {
                return;
            }
            for (Partition p : partitions) {
                if (p.clock.relativeTimeNanos() - p.lastActivityNanos < closeAfterNanos) {
                    return;
                }
            }
            closedAt = newest;
            mainOutput.emitWatermark(new Watermark(newest));
            mainOutput.markIdle();
        }

        private boolean settled() {
            if (!settled && anyEvent && clock.relativeTimeNanos() - firstEventNanos >= settleNanos) {
                settled = true;
            }
            return settled;
        }

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
        private boolean listed;
        /** The reader's main output: it counts only once it has had an event. */
        private final boolean main;

        Partition(Reader reader, RelativeClock clock) {
            this.reader = reader;
            this.clock = clock;
            this.maxTimestamp = Long.MIN_VALUE + boundMs + 1;
            this.lastActivityNanos = clock.relativeTimeNanos();
            this.rounds = reader.rounds;
            this.main = reader.first;
            reader.first = false;
            if (main || reader.clock == null) {
                reader.clock = clock;
            }
            if (!main) {
                listed = true;
                reader.partitions.add(this);
            }
        }

        @Override
        public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
            if (!hasEventTime.test(event)) {
                return;
            }
            if (reader.idle) {
                reader.wake();
            }
            if (!listed) {
                listed = true;
                reader.partitions.add(this);
            }
            if (!reader.anyEvent) {
                reader.anyEvent = true;
                reader.firstEventNanos = reader.clock.relativeTimeNanos();
            }
            activity++;
            quiet = false;
            if (eventTimestamp > maxTimestamp) {
                maxTimestamp = eventTimestamp;
                reader.newest = Math.max(reader.newest, eventTimestamp);
                // The reader cannot idle before every partition has emitted this: it is the highest now.
                reader.highest = Math.max(reader.highest, own());
                if (perEvent && reader.settled()) {
                    emit(output, own());
                }
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            rounds = Math.max(rounds, reader.rounds - 1) + 1;
            reader.rounds = Math.max(reader.rounds, rounds);
            if (main && activity == 0) {
                reader.main = output;
                reader.closeIfQuiet(output);
                return;
            }
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
                reader.idle();
                output.markIdle();
                return;
            }
            if (!reader.settled()) {
                return; // held: a partition served later must not find the reader's watermark past its events
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
