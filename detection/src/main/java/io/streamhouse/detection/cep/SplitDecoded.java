package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.time.Instant;

/**
 * Right after a source: dead letters to a side output (to {@code <topic>.dlq}); events behind the source's watermark
 * to another side output (to {@code <topic>.late}, with the reason) <em>and</em> on to the pattern operators, which reconcile
 * them; every event on to the pattern operators. Late is decided here, once per event, against the watermark of its own topic.
 */
final class SplitDecoded<T extends SpecificRecord> extends ProcessFunction<Either<DeadLetter, T>, T> {
    static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {
    };
    static final OutputTag<LateRecord> LATE = new OutputTag<>("late-events") {
    };

    private final String topic;
    private final String lateTopic;
    private final Class<T> type;
    private final RegistryClientFactory registry;
    private transient AvroSerializer<T> lateSerializer;

    SplitDecoded(Topic<String, T> topic, RegistryClientFactory registry) {
        this.topic = topic.name();
        this.lateTopic = Topics.lateOf(topic).name();
        this.type = topic.valueType();
        this.registry = registry;
    }

    @Override
    public void open(OpenContext openContext) {
        lateSerializer = new AvroSerializer<>(registry.create(), type, false);
    }

    @Override
    public void processElement(Either<DeadLetter, T> in, Context ctx, Collector<T> out) {
        if (in.isLeft()) {
            ctx.output(DEAD_LETTERS, in.left());
            return;
        }
        T event = in.right();
        Envelope envelope = (Envelope) event.get(0);
        long at = envelope.getOccurredAt().toEpochMilli();
        long watermark = ctx.timerService().currentWatermark();
        if (watermark != Long.MIN_VALUE && at <= watermark) {
            String reason = "event time " + envelope.getOccurredAt() + " is " + (watermark - at)
                    + " ms behind the watermark " + Instant.ofEpochMilli(watermark) + " of " + topic;
            ctx.output(LATE, new LateRecord(topic, lateTopic, envelope.getKey(), lateSerializer.serialize(lateTopic, event),
                    envelope.getEventId(), at, watermark, reason));
        }
        out.collect(event);
    }
}
