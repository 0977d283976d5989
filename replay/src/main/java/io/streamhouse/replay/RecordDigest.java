package io.streamhouse.replay;

import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An order-dependent SHA-256 of a sequence of (key, value) records, each length-prefixed: how a backfill proves that
 * what it stitched and read back is what the lake and the log hold. Values are digested in {@link #canonical} form.
 */
final class RecordDigest {

    private final MessageDigest sha;

    RecordDigest() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    void add(byte[] key, byte[] value) {
        for (byte[] b : new byte[][]{key, value}) {
            sha.update(ByteBuffer.allocate(4).putInt(b == null ? -1 : b.length).array());
            if (b != null) {
                sha.update(b);
            }
        }
    }

    String hex() {
        try {
            return HexFormat.of().formatHex(((MessageDigest) sha.clone()).digest()).substring(0, 16);
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A record value as compared and digested: the wire header as it is, the Avro body re-encoded with every map's
     * entries sorted by key. The lake does not keep a map's entry order (the sink hands Parquet a Connect map), and
     * Avro's map encoding follows the writer's iteration order, so a round trip through the lake can reorder the
     * entries of, for instance, a decision reason's {@code facts}: the same value, other bytes. Everything else —
     * every field, every map entry, the schema id, the key — is compared byte for byte. A value that does not decode
     * with the topic's schema (a record for the dead-letter topic) is compared as it is.
     */
    static byte[] canonical(String topic, byte[] wire) {
        if (wire == null || wire.length < WireFormat.HEADER_SIZE || wire[0] != WireFormat.MAGIC_BYTE) {
            return wire;
        }
        Schema schema = Topics.all().stream().filter(t -> t.name().equals(topic)).findFirst()
                .map(t -> SpecificData.get().getSchema(t.valueType())).orElse(null);
        if (schema == null) {
            return wire;
        }
        try {
            Object value = new org.apache.avro.generic.GenericDatumReader<>(schema, schema, org.apache.avro.generic.GenericData.get())
                    .read(null, DecoderFactory.get().binaryDecoder(wire, WireFormat.HEADER_SIZE, wire.length - WireFormat.HEADER_SIZE, null));
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.write(wire, 0, WireFormat.HEADER_SIZE);
            var encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
            new org.apache.avro.generic.GenericDatumWriter<>(schema, org.apache.avro.generic.GenericData.get()).write(sorted(value), encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException | RuntimeException unreadable) {
            return wire;
        }
    }

    private static Object sorted(Object value) {
        if (value instanceof org.apache.avro.generic.GenericData.Record r) {
            for (Schema.Field f : r.getSchema().getFields()) {
                r.put(f.pos(), sorted(r.get(f.pos())));
            }
            return r;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(e -> out.add(sorted(e)));
            return out;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new TreeMap<>();
            map.forEach((k, v) -> out.put(k.toString(), sorted(v)));
            return out;
        }
        return value;
    }
}
