package io.streamhouse.domain.wire;

import java.nio.ByteBuffer;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Confluent's wire format: byte 0 is the magic byte {@code 0x00}, bytes 1–4 the schema id (big-endian, signed 32-bit),
 * then the Avro binary encoding of the record, with no length prefix and nothing after it.
 *
 * <p>Every failure names the topic, because a consumer reading many topics otherwise cannot say which one carries the
 * bad bytes (Kafka adds partition and offset when it wraps the exception in a {@code RecordDeserializationException}).
 */
public final class WireFormat {

    public static final byte MAGIC_BYTE = 0x0;

    /** Magic byte plus the 4-byte schema id. */
    public static final int HEADER_SIZE = 5;

    private WireFormat() {
    }

    /**
     * The schema id of a framed payload.
     *
     * @throws SerializationException if the payload is empty, has another magic byte, or is shorter than the header
     */
    public static int schemaId(byte[] payload, String topic) {
        if (payload == null || payload.length == 0) {
            throw new SerializationException(prefix(topic) + ": empty payload (0 bytes), expected at least the "
                    + HEADER_SIZE + "-byte Confluent wire-format header");
        }
        if (payload[0] != MAGIC_BYTE) {
            throw new SerializationException(String.format(
                    "%s: unknown magic byte 0x%02x (expected 0x00, Confluent wire format)",
                    prefix(topic), payload[0] & 0xff));
        }
        if (payload.length < HEADER_SIZE) {
            throw new SerializationException(prefix(topic) + ": truncated header, payload has " + payload.length
                    + " bytes but the magic byte and schema id need " + HEADER_SIZE);
        }
        return ByteBuffer.wrap(payload, 1, 4).getInt();
    }

    /** Prepends the header to an Avro body. */
    public static byte[] frame(int schemaId, byte[] avroBody) {
        return ByteBuffer.allocate(HEADER_SIZE + avroBody.length)
                .put(MAGIC_BYTE)
                .putInt(schemaId)
                .put(avroBody)
                .array();
    }

    /** The header alone, for writers that stream the body after it. */
    public static byte[] header(int schemaId) {
        return ByteBuffer.allocate(HEADER_SIZE).put(MAGIC_BYTE).putInt(schemaId).array();
    }

    static String prefix(String topic) {
        return "Cannot deserialize record from topic '" + topic + "'";
    }

    static String prefix(String topic, int schemaId) {
        return prefix(topic) + " with schema id " + schemaId;
    }
}
