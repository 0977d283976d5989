package io.streamhouse.plumbing;

import io.streamhouse.domain.events.EventTimes;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * Decodes a raw value inside the topology instead of in Kafka Streams' deserializer, so that a record that cannot
 * be read is not lost and does not stop the application: it is forwarded as {@link Decoded#failed} with the reason,
 * the source topic, partition and offset, and the schema id (when the wire format is readable) in headers, and the
 * caller routes it to the dead-letter topic. Because this happens inside the topology, the dead letter is written in
 * the same exactly-once transaction as the rest of the output.
 * <p>An event whose time is more than {@link EventTimes#MAX_AHEAD} ahead of its record's timestamp (the time it was
 * written) is dead-lettered the same way, with {@link EventTimes}' reason, as the CEP job does: the stores behind this
 * step keep state by event time (a card's activity, the serving stores' versions, whose changelog records are stamped
 * with it), so one such event would push a key's state past every event written after it, and a changelog record a
 * broker's clock has not reached is refused, which stops the stream thread on every retry. Judged against the record
 * timestamp, so a rebuild decides as live did.
 */
final class DecodeOrDeadLetter<V> implements FixedKeyProcessor<String, byte[], Decoded<V>> {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeOrDeadLetter.class);

    private final Deserializer<V> deserializer;
    private final java.util.function.Function<V, String> expectedKey;
    private final String processorName;
    private FixedKeyProcessorContext<String, Decoded<V>> context;

    DecodeOrDeadLetter(Deserializer<V> deserializer, java.util.function.Function<V, String> expectedKey, String processorName) {
        this.deserializer = deserializer;
        this.expectedKey = expectedKey;
        this.processorName = processorName;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Decoded<V>> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
        var meta = context.recordMetadata().orElseThrow();
        byte[] raw = record.value();
        if (raw == null) {
            // A tombstone on an event log is not an event; keep it visible instead of dropping it.
            forwardFailed(record, meta.topic(), meta.partition(), meta.offset(), "null value (tombstone) on an event topic", null);
            return;
        }
        try {
            V value = deserializer.deserialize(meta.topic(), record.headers(), raw);
            if (value == null) {
                forwardFailed(record, meta.topic(), meta.partition(), meta.offset(), "deserializer returned null", null);
                return;
            }
            String key = expectedKey.apply(value);
            if (!key.equals(record.key())) {
                forwardFailed(record, meta.topic(), meta.partition(), meta.offset(),
                        "record key '" + record.key() + "' is not the event's aggregate id '" + key + "'", null);
                return;
            }
            Optional<String> tooFarAhead = DeadLetters.tooFarAhead(value, record.timestamp());
            if (tooFarAhead.isPresent()) {
                forwardFailed(record, meta.topic(), meta.partition(), meta.offset(), tooFarAhead.get(), null);
                return;
            }
            context.forward(record.withValue(Decoded.ok(value, raw)));
        } catch (RuntimeException e) {
            forwardFailed(record, meta.topic(), meta.partition(), meta.offset(), e.getMessage(), e);
        }
    }

    private void forwardFailed(FixedKeyRecord<String, byte[]> record, String topic, int partition, long offset,
                               String reason, RuntimeException e) {
        String why = reason == null ? String.valueOf(e) : reason;
        byte[] raw = record.value();
        LOG.warn("Dead-lettering record {}-{}@{} (key {}): {}", topic, partition, offset, record.key(), why);
        Headers headers = DeadLetterHeaderBuilder.because(why).exception(e).source(topic, partition, offset)
                .processor(processorName).schemaIdOf(raw).onto(record.headers());
        context.forward(record.withValue(Decoded.<V>failed(raw == null ? new byte[0] : raw)).withHeaders(headers));
    }
}
