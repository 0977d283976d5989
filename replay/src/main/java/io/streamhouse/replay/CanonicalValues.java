package io.streamhouse.replay;

import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * The bytes a store's value is compared by. An Avro map has no order, but its binary encoding writes the entries in
 * the order the writer held them: a decision's rule {@code facts} come off the log in the order the rule wrote them
 * and out of the lake (an Iceberg map) in another, the same value either way. A store whose value type holds a map is
 * compared by its values re-encoded with every map's entries in key order; any other store by the bytes as stored.
 */
final class CanonicalValues {

    private CanonicalValues() {
    }

    /**
     * What to compare {@code valueType}'s stored bytes by, when not by the bytes themselves (it holds a map): the
     * value decoded with {@code decoder} (from {@code topic}) and encoded with sorted maps, or the bytes as they are
     * when they do not decode (so an unreadable value still differs from a readable one).
     */
    static Optional<UnaryOperator<byte[]>> of(Class<? extends SpecificRecord> valueType, Deserializer<?> decoder, String topic) {
        Schema schema = SpecificData.get().getSchema(valueType);
        if (!holdsMap(schema, new HashSet<>())) {
            return Optional.empty();
        }
        SortedMapsWriter writer = new SortedMapsWriter(schema);
        return Optional.of(bytes -> {
            if (bytes == null) {
                return null;
            }
            Object value;
            try {
                value = decoder.deserialize(topic, bytes);
            } catch (RuntimeException e) {
                return bytes;
            }
            return writer.encode(value);
        });
    }

    static boolean holdsMap(Schema schema, Set<String> seen) {
        return switch (schema.getType()) {
            case MAP -> true;
            case ARRAY -> holdsMap(schema.getElementType(), seen);
            case UNION -> schema.getTypes().stream().anyMatch(t -> holdsMap(t, seen));
            case RECORD -> seen.add(schema.getFullName())
                    && schema.getFields().stream().anyMatch(f -> holdsMap(f.schema(), seen));
            default -> false;
        };
    }

    /** Avro's binary encoding, with each map's entries written in the order of their keys. */
    private static final class SortedMapsWriter extends SpecificDatumWriter<Object> {
        private static final Comparator<Object> BY_KEY = Comparator.comparing(Object::toString);

        SortedMapsWriter(Schema schema) {
            super(schema);
        }

        @Override
        protected void writeMap(Schema schema, Object datum, Encoder out) throws IOException {
            Map<Object, Object> sorted = new TreeMap<>(BY_KEY);
            sorted.putAll((Map<?, ?>) datum);
            super.writeMap(schema, sorted, out);
        }

        byte[] encode(Object value) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
            try {
                write(value, encoder);
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }
    }
}
