package io.streamhouse.domain.wire;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads Confluent wire-format bytes into a generated Avro class, resolving the writer's schema (fetched by the id in
 * the payload) against the class's schema, so a consumer built with v2 of a schema reads records written with v1
 * (fields added with a default get the default; removed fields are skipped).
 *
 * <p>One {@link DatumReader} is built and cached per writer schema id: the registry is asked once per id, and the
 * resolution between the two schemas is computed once. Avro's readers are safe to share between threads. {@code null}
 * bytes deserialize to {@code null} (tombstones).
 *
 * <p>Every failure is a {@link SerializationException} whose message names the topic, the schema id when the header
 * could be read, and the cause. The payload must contain exactly one record: trailing bytes mean the writer used
 * another schema than the id says, and are rejected rather than silently ignored.
 */
public class AvroDeserializer<T extends SpecificRecord> implements Deserializer<T> {

    private final Map<Integer, DatumReader<T>> readers = new ConcurrentHashMap<>();
    private volatile SchemaRegistryClient client;
    private volatile Class<T> type;
    private volatile Schema readerSchema;
    private volatile boolean ownsClient;

    /** For Kafka's reflective instantiation; {@link #configure} must follow. */
    public AvroDeserializer() {
    }

    public AvroDeserializer(SchemaRegistryClient client, Class<T> type, boolean isKey) {
        this.client = Objects.requireNonNull(client, "client");
        this.type = Objects.requireNonNull(type, "type");
        this.readerSchema = schemaOf(type);
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        if (type == null) {
            Class<T> configured = readerClass(configs);
            this.readerSchema = schemaOf(configured);
            this.type = configured;
        }
        if (client == null) {
            client = AvroSerdeConfig.clientFrom(configs);
            ownsClient = true;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecord> Class<T> readerClass(Map<String, ?> configs) {
        Object value = configs.get(AvroSerdeConfig.READER_CLASS);
        if (value instanceof Class<?> c) {
            if (!SpecificRecord.class.isAssignableFrom(c)) {
                throw new ConfigException(AvroSerdeConfig.READER_CLASS, c.getName(), "not a SpecificRecord class");
            }
            return (Class<T>) c;
        }
        if (value == null || value.toString().isBlank()) {
            throw new ConfigException(AvroSerdeConfig.READER_CLASS
                    + " is required: the generated SpecificRecord class to read into");
        }
        String name = value.toString().trim();
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class<?> c = Class.forName(name, true, loader != null ? loader : AvroDeserializer.class.getClassLoader());
            if (!SpecificRecord.class.isAssignableFrom(c)) {
                throw new ConfigException(AvroSerdeConfig.READER_CLASS, name, "not a SpecificRecord class");
            }
            return (Class<T>) c;
        } catch (ClassNotFoundException e) {
            throw new ConfigException(AvroSerdeConfig.READER_CLASS, name, "class not found");
        }
    }

    private static Schema schemaOf(Class<?> type) {
        Schema schema = SpecificData.getForClass(type).getSchema(type);
        if (schema == null || schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException(type.getName() + " is not a generated Avro record class");
        }
        return schema;
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (client == null || type == null) {
            throw new IllegalStateException("AvroDeserializer is not configured: needs a client and a reader class");
        }
        int id = WireFormat.schemaId(data, topic);
        DatumReader<T> reader = readers.get(id);
        if (reader == null) {
            // Built outside the map's lock: it may call the registry. Two threads may build one each; one wins.
            try {
                DatumReader<T> built = newReader(id);
                DatumReader<T> raced = readers.putIfAbsent(id, built);
                reader = raced != null ? raced : built;
            } catch (RuntimeException e) {
                throw new SerializationException(WireFormat.prefix(topic, id) + ": " + e.getMessage(), e);
            }
        }
        int bodyLength = data.length - WireFormat.HEADER_SIZE;
        T record;
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, WireFormat.HEADER_SIZE, bodyLength, null);
        try {
            record = reader.read(null, decoder);
        } catch (Exception e) {
            throw new SerializationException(WireFormat.prefix(topic, id) + ": cannot decode the " + bodyLength
                    + "-byte Avro body with the writer schema (truncated or corrupt payload?): "
                    + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
        try {
            if (!decoder.isEnd()) {
                int left = decoder.inputStream().available();
                throw new SerializationException(WireFormat.prefix(topic, id) + ": " + left
                        + " trailing bytes after the record; the bytes were not written with schema id " + id);
            }
        } catch (java.io.IOException e) {
            throw new SerializationException(WireFormat.prefix(topic, id) + ": " + e.getMessage(), e);
        }
        return record;
    }

    private DatumReader<T> newReader(int id) {
        Schema writer;
        try {
            writer = client.getById(id);
        } catch (SchemaRegistryException e) {
            throw new SerializationException("writer schema not found in the registry: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new SerializationException("cannot fetch the writer schema from the registry: " + e.getMessage(), e);
        }
        List<String> problems = Incompatibilities.of(readerSchema, writer);
        if (!problems.isEmpty()) {
            throw new SerializationException("writer schema " + writer.getFullName() + " cannot be read as "
                    + type.getName() + ": " + String.join("; ", problems));
        }
        return new SpecificDatumReader<>(writer, readerSchema, model());
    }

    /**
     * The generated class's own model carries its logical-type conversions but resolves record classes through
     * Avro's class loader; where the application has its own loader (Quarkus, Flink user code) that yields
     * instances of a foreign copy of the class. So: the reader class's loader, with the generated conversions.
     */
    private SpecificData model() {
        SpecificData generated = SpecificData.getForClass(type);
        if (generated.getClassLoader() == type.getClassLoader()) {
            return generated;
        }
        SpecificData model = new SpecificData(type.getClassLoader());
        generated.getConversions().forEach(model::addLogicalTypeConversion);
        return model;
    }

    @Override
    public void close() {
        if (ownsClient && client != null) {
            client.close();
        }
    }
}
