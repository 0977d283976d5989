package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.types.Either;

import java.time.Duration;

/**
 * Watermarks of the job. Event time is the envelope's {@code occurredAt}; dead letters carry no event time and never
 * move the watermark. The rules stream is not event-time data: it holds no watermark back, by being idle.
 */
final class EventTimeWatermarks {

    /**
     * How far a partition's watermark may run ahead of the slowest one of its alignment group before it is paused. The
     * sources exchange their watermarks every {@link #ALIGNMENT_UPDATE}, so a group catches up on a backlog at most about
     * this much event time per update: large enough not to slow the catching up, small against the partitions' fetch
     * batches (a batch of one partition spans hours of a burst's event time), which are what starve the others.
     */
    static final Duration ALIGNMENT_DRIFT = Duration.ofMinutes(15);
    static final Duration ALIGNMENT_UPDATE = Duration.ofMillis(200);
    /**
     * How long a reader holds its watermark after its first event, for each of its partitions to deliver a first batch
     * (Flink creates a partition's output only then; see {@link ReaderWatermarks}): at most the idleness timeout.
     */
    static final Duration SETTLE = Duration.ofSeconds(10);

    /**
     * Bounded out-of-orderness on the envelope's {@code occurredAt}; a partition quiet for the idleness timeout follows
     * its reader's others, and a reader whose partitions are all quiet idles (see {@link ReaderWatermarks} for why not
     * {@code withIdleness}). Aligned across {@code alignmentGroup} and across the partitions of each reader: a partition
     * whose watermark is more than {@link #ALIGNMENT_DRIFT} ahead of the group's slowest is paused, so that when a
     * backlog is read (after downtime, a burst, a restore, a replay) the partitions behind are read rather than left
     * waiting until they look quiet.
     */
    static <T extends SpecificRecord> WatermarkStrategy<Either<DeadLetter, T>> forEvents(CepJobConfig config,
                                                                                        String alignmentGroup) {
        Duration settle = !config.settle() ? Duration.ZERO
                : config.idleness().compareTo(SETTLE) < 0 ? config.idleness() : SETTLE;
        WatermarkStrategy<Either<DeadLetter, T>> strategy = new ReaderWatermarks<Either<DeadLetter, T>>(
                config.maxOutOfOrderness(), config.idleness(), settle, config.watermarkPerEvent(),
                e -> ((Envelope) e.right().get(0)).getOccurredAt().toEpochMilli(), Either::isRight);
        return config.aligned() ? strategy.withWatermarkAlignment(alignmentGroup, ALIGNMENT_DRIFT, ALIGNMENT_UPDATE)
                : strategy;
    }

    /** The alignment group of a topic: customer changes and orders meet in one pattern, so they share one. */
    static String alignmentGroupOf(String topic) {
        return topic.equals(Topics.CUSTOMERS.name()) || topic.equals(Topics.ORDERS.name()) ? "shop-activity" : topic;
    }

    /**
     * For the rules stream, the second input of every pattern operator: always idle, never a watermark. An operator's
     * event time is the minimum over its <em>active</em> inputs, so an idle rules input leaves it to the events. A
     * watermark of +&infin; here would do the same only while the events' input is active: once that went idle (no
     * event for the idleness timeout, e.g. a quiet night), the operator's watermark would become the rules' +&infin; —
     * end of input — and, watermarks never going back, stay there: every retained fact dropped, and every later event
     * evaluated alone and dropped, so nothing detected again until a restart.
     */
    static <T> WatermarkStrategy<T> notEventTime() {
        return WatermarkStrategy.<T>forGenerator(ctx -> new AlwaysIdle<>());
    }

    static final class AlwaysIdle<T> implements WatermarkGenerator<T> {
        @Override
        public void onEvent(T event, long timestamp, WatermarkOutput output) {
            output.markIdle();
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            output.markIdle();
        }
    }

    private EventTimeWatermarks() {
    }
}
