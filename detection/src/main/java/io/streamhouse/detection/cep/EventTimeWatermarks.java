package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Envelope;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.types.Either;

/**
 * Watermarks of the job. Event time is the envelope's {@code occurredAt}; dead letters carry no event time and never
 * move the watermark. The rules stream is not event-time data: it holds no watermark back, by being idle.
 */
final class EventTimeWatermarks {

    static <T extends SpecificRecord> WatermarkStrategy<Either<DeadLetter, T>> forEvents(CepJobConfig config) {
        long bound = config.maxOutOfOrderness().toMillis();
        boolean perEvent = config.watermarkPerEvent();
        return WatermarkStrategy.<Either<DeadLetter, T>>forGenerator(ctx -> new BoundedOutOfOrderness<>(bound, perEvent))
                .withTimestampAssigner((e, kafkaTimestamp) -> e.isRight()
                        ? ((Envelope) e.right().get(0)).getOccurredAt().toEpochMilli() : Long.MIN_VALUE)
                .withIdleness(config.idleness());
    }

    /**
     * For the rules stream, the second input of every matcher: always idle, never a watermark. A matcher's event time is
     * the minimum over its <em>active</em> inputs, so an idle rules input leaves it to the events. A watermark of
     * +&infin; here (what this stream emitted before) did the same only while the events' input was active: once that
     * went idle (no event for the idleness timeout, e.g. a quiet night), the matcher's watermark became the rules'
     * +&infin; — end of input — and, watermarks never going back, stayed there: every retained fact was dropped, and
     * every later event evaluated alone and dropped, so nothing was detected again until a restart.
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

    /** Flink's bounded out-of-orderness, optionally emitting after every event. */
    static final class BoundedOutOfOrderness<T> implements WatermarkGenerator<Either<DeadLetter, T>> {
        private final long bound;
        private final boolean perEvent;
        private long maxTimestamp;

        BoundedOutOfOrderness(long bound, boolean perEvent) {
            this.bound = bound;
            this.perEvent = perEvent;
            this.maxTimestamp = Long.MIN_VALUE + bound + 1;
        }

        @Override
        public void onEvent(Either<DeadLetter, T> event, long timestamp, WatermarkOutput output) {
            if (event.isLeft()) {
                return;
            }
            if (timestamp > maxTimestamp) {
                maxTimestamp = timestamp;
                if (perEvent) {
                    output.emitWatermark(new Watermark(maxTimestamp - bound - 1));
                }
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            output.emitWatermark(new Watermark(maxTimestamp - bound - 1));
        }
    }

    private EventTimeWatermarks() {
    }
}
