package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.events.EventTimes;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * Reads a domain topic in the registry wire format (the domain's {@link AvroDeserializer} with its caching registry
 * client) into the generated Avro class. A record that cannot be read does not fail the job: it comes out as a
 * {@link DeadLetter} (left) with the reason, and the job writes it to {@code <topic>.dlq}; readable events come out
 * right. So does an event whose time is too far ahead of when it was written ({@link EventTimes}): it would carry the
 * watermark past every event after it. The produced type is Avro for the event and a POJO for the dead letter: no Kryo anywhere.
 */
public final class WireDeserializationSchema<T extends SpecificRecord>
        implements KafkaRecordDeserializationSchema<Either<DeadLetter, T>> {
    private static final Logger LOG = LoggerFactory.getLogger(WireDeserializationSchema.class);

    private final String topic;
    private final Class<T> type;
    private final RegistryClientFactory registry;
    private transient AvroDeserializer<T> deserializer;

    public WireDeserializationSchema(Topic<String, T> topic, RegistryClientFactory registry) {
        this.topic = topic.name();
        this.type = topic.valueType();
        this.registry = registry;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        deserializer = new AvroDeserializer<>(registry.create(), type, false);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Either<DeadLetter, T>> out) {
        Either<DeadLetter, T> decoded = decode(record.topic(), record.partition(), record.offset(), record.key(), record.value());
        if (decoded.isRight() && record.timestamp() >= 0) {
            Instant occurredAt = ((Envelope) decoded.right().get(0)).getOccurredAt();
            var tooFarAhead = EventTimes.tooFarAhead(occurredAt, Instant.ofEpochMilli(record.timestamp()));
            if (tooFarAhead.isPresent()) {
                decoded = dead(record.topic(), record.partition(), record.offset(), record.key(), record.value(),
                        tooFarAhead.get(), null);
            }
        }
        out.collect(decoded);
    }

    /** Decodes one record's value; visible for tests that feed bytes without a broker. */
    public Either<DeadLetter, T> decode(String sourceTopic, int partition, long offset, byte[] key, byte[] value) {
        if (deserializer == null) {
            open(null);
        }
        if (value == null) {
            return dead(sourceTopic, partition, offset, key, null, "null value (tombstone) on an event topic", null);
        }
        try {
            T event = deserializer.deserialize(sourceTopic, value);
            if (event == null) {
                return dead(sourceTopic, partition, offset, key, value, "deserializer returned null", null);
            }
            return Either.Right(event);
        } catch (RuntimeException e) {
            return dead(sourceTopic, partition, offset, key, value, String.valueOf(e.getMessage()), e);
        }
    }

    private Either<DeadLetter, T> dead(String sourceTopic, int partition, long offset, byte[] key, byte[] value,
                                       String reason, RuntimeException e) {
        LOG.warn("Dead-lettering record {}-{}@{}: {}", sourceTopic, partition, offset, reason);
        Integer schemaId = value != null && value.length >= WireFormat.HEADER_SIZE && value[0] == WireFormat.MAGIC_BYTE
                ? ByteBuffer.wrap(value, 1, 4).getInt() : null;
        return Either.Left(new DeadLetter(sourceTopic, partition, offset, key, value == null ? new byte[0] : value,
                reason, e == null ? null : e.getClass().getName(), schemaId, "cep-job-decode-" + topic));
    }

    @Override
    public TypeInformation<Either<DeadLetter, T>> getProducedType() {
        return typeOf(type);
    }

    public static <T extends SpecificRecord> TypeInformation<Either<DeadLetter, T>> typeOf(Class<T> type) {
        return new EitherTypeInfo<>(TypeInformation.of(DeadLetter.class), AvroTypes.of(type));
    }
}
