package io.streamhouse.domain.wire;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes a generated Avro record in Confluent's wire format under the TopicNameStrategy subject
 * ({@code <topic>-value} or {@code <topic>-key}).
 *
 * <p>With {@code auto.register.schemas=true} (the default) the record's schema is registered, so a producer cannot
 * write a schema the registry would reject as incompatible; with {@code false} it must already be registered (the
 * usual setting in production, where a deploy step registers schemas). The client caches the id, so the registry is
 * asked once per schema, not per record. {@code null} serializes to {@code null} (a tombstone). Thread-safe.
 *
 * <p>The schema sent to the registry is the generated class's schema without the Java-only {@code avro.java.string}
 * properties, so that producers in other languages writing the same .avsc get the same id.
 *
 * <p>Use {@link #AvroSerializer(SchemaRegistryClient, Class, boolean)} in code, or the no-arg constructor plus
 * {@link #configure} (keys in {@link AvroSerdeConfig}) when Kafka instantiates it from a class name; only then does
 * the serializer own, and close, its client.
 */
public class AvroSerializer<T extends SpecificRecord> implements Serializer<T> {

    private final Map<Schema, DatumWriter<Object>> writers = new ConcurrentHashMap<>();
    /** Class schema → the language-neutral schema registered for it (see {@link AvroSchemas}). */
    private final Map<Schema, Schema> registrySchemas = new ConcurrentHashMap<>();
    private volatile SchemaRegistryClient client;
    private volatile Class<T> type;
    private volatile boolean isKey;
    private volatile boolean autoRegister = true;
    private volatile boolean ownsClient;

    /** For Kafka's reflective instantiation; {@link #configure} must follow. */
    public AvroSerializer() {
    }

    public AvroSerializer(SchemaRegistryClient client, Class<T> type, boolean isKey) {
        this.client = Objects.requireNonNull(client, "client");
        this.type = Objects.requireNonNull(type, "type");
        this.isKey = isKey;
    }

    /** Whether to register schemas (default) or only look up their ids. */
    public AvroSerializer<T> autoRegister(boolean autoRegister) {
        this.autoRegister = autoRegister;
        return this;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        this.isKey = isKey;
        this.autoRegister = AvroSerdeConfig.autoRegister(configs);
        if (client == null) {
            client = AvroSerdeConfig.clientFrom(configs);
            ownsClient = true;
        }
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        Class<T> expected = type;
        if (expected != null && !expected.isInstance(data)) {
            throw new SerializationException("Cannot serialize record for topic '" + topic + "': expected "
                    + expected.getName() + " but got " + data.getClass().getName());
        }
        SchemaRegistryClient registry = client;
        if (registry == null) {
            throw new IllegalStateException("AvroSerializer is not configured: no SchemaRegistryClient");
        }
        Schema schema = data.getSchema();
        String subject = AvroSerdeConfig.subjectName(topic, isKey);
        int id;
        try {
            Schema registered = registrySchemas.computeIfAbsent(schema, AvroSchemas::withoutJavaProperties);
            id = autoRegister ? registry.register(subject, registered) : registry.getId(subject, registered);
        } catch (RuntimeException e) {
            throw new SerializationException("Cannot serialize record for topic '" + topic + "': the registry gave no"
                    + " id for schema " + schema.getFullName() + " under subject '" + subject + "' ("
                    + (autoRegister ? "register" : "lookup, auto.register.schemas=false") + "): " + e.getMessage(), e);
        }
        Buffer out = BUFFERS.get();
        try {
            out.start(id);
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, out.encoder);
            out.encoder = encoder;
            writers.computeIfAbsent(schema, s -> writerFor(s, data)).write(data, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Cannot serialize record for topic '" + topic + "' with schema id " + id
                    + " (" + schema.getFullName() + "): " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Where a thread encodes its records: reused, and not synchronized ({@code ByteArrayOutputStream} takes a lock on
     * every write, and the direct encoder writes once per field: a few hundred locks for one customer state, which a
     * rebuild encodes half a million times). A buffer grown past {@link #KEPT} for one large record is not kept.
     */
    private static final ThreadLocal<Buffer> BUFFERS = ThreadLocal.withInitial(Buffer::new);

    static final class Buffer extends java.io.OutputStream {
        static final int KEPT = 64 * 1024;
        private byte[] bytes = new byte[1024];
        private int size;
        BinaryEncoder encoder;

        void start(int schemaId) {
            if (bytes.length > KEPT) {
                bytes = new byte[1024];
            }
            size = 0;
            ensure(WireFormat.HEADER_SIZE);
            bytes[size++] = WireFormat.MAGIC_BYTE;
            bytes[size++] = (byte) (schemaId >>> 24);
            bytes[size++] = (byte) (schemaId >>> 16);
            bytes[size++] = (byte) (schemaId >>> 8);
            bytes[size++] = (byte) schemaId;
        }

        @Override
        public void write(int b) {
            ensure(1);
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            ensure(len);
            System.arraycopy(b, off, bytes, size, len);
            size += len;
        }

        byte[] toByteArray() {
            return java.util.Arrays.copyOf(bytes, size);
        }

        private void ensure(int more) {
            if (size + more > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static DatumWriter<Object> writerFor(Schema schema, SpecificRecord sample) {
        // The class's own SpecificData carries the logical-type conversions generated for it.
        return (DatumWriter<Object>) (DatumWriter<?>) new SpecificDatumWriter<>(schema,
                SpecificData.getForClass(sample.getClass()));
    }

    @Override
    public void close() {
        if (ownsClient && client != null) {
            client.close();
        }
    }
}
