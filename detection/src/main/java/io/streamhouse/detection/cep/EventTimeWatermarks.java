package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Envelope;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.types.Either;

/**
 * Watermarks of the job. Event time is the envelope's {@code occurredAt}; dead letters carry no event time and never
 * move the watermark. The rules stream is not event-time data: it holds no watermark back, by being idle.
 */
final class EventTimeWatermarks {

    /**
     * Bounded out-of-orderness on the envelope's {@code occurredAt}; a partition quiet for the idleness timeout follows
     * its reader's others, and a reader whose partitions are all quiet idles (see {@link ReaderWatermarks} for why not
     * {@code withIdleness}).
     */
    static <T extends SpecificRecord> WatermarkStrategy<Either<DeadLetter, T>> forEvents(CepJobConfig config) {
        return new ReaderWatermarks<>(config.maxOutOfOrderness(), config.idleness(), config.watermarkPerEvent(),
                e -> ((Envelope) e.right().get(0)).getOccurredAt().toEpochMilli(), Either::isRight);
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

    private EventTimeWatermarks() {
    }
}
