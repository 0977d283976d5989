package io.streamhouse.connect;

import io.streamhouse.domain.wire.AvroSerdeConfig;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Kafka Connect {@link Converter} for the Confluent wire format on our schema registry (Confluent's own converter
 * is not on Maven Central): magic byte 0, 4-byte schema id, Avro binary.
 *
 * <p>{@link #fromConnectData} maps the record's Connect schema to Avro ({@link ConnectAvro}), registers it under
 * {@code <topic>-value} (or {@code <topic>-key} for a key converter; TopicNameStrategy) through the domain's
 * caching registry client (one HTTP call per new schema, then cached) and writes the framed bytes. A null value (a
 * tombstone) stays null. {@link #toConnectData} reads the id, fetches the writer's schema and maps it back.
 *
 * <p>Card numbers (Luhn-valid runs of 13-19 digits, {@code CardNumbers}) in any text of a written record are masked
 * digit by digit ({@link TextMasking}, on the Avro datum before it is encoded): Debezium's rows from the shop database
 * are the one edge where outside text reaches a topic without passing through ingest.
 *
 * <p>Config: {@code schema.registry.url} (comma-separated URLs, as for the domain serializers). Failures are
 * {@link DataException}s that name the topic; Connect's {@code errors.tolerance} decides what happens then (the
 * default, none, fails the task: a record is never silently dropped). Thread-safe.
 */
public class RegistryAvroConverter implements Converter {

    private final Map<org.apache.kafka.connect.data.Schema, Schema> avroSchemas = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> writerSchemas = new ConcurrentHashMap<>();
    private final Map<Integer, org.apache.kafka.connect.data.Schema> connectSchemas = new ConcurrentHashMap<>();
    private final ConnectAvro mapping = new ConnectAvro();
    /** {@code topic} (default): {@code <topic>-value}; {@code topic-record}: {@code <topic>-<record full name>}, for topics carrying several record types. */
    public static final String SUBJECT_STRATEGY = "subject.name.strategy";

    private SchemaRegistryClient client;
    private boolean isKey;
    private boolean perRecordSubjects;

    public RegistryAvroConverter() {
    }

    /** For tests: a given client (e.g. the in-memory one). */
    public RegistryAvroConverter(SchemaRegistryClient client) {
        this.client = client;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        this.isKey = isKey;
        Object strategy = configs.get(SUBJECT_STRATEGY);
        if (strategy != null && !"topic".equals(strategy.toString()) && !"topic-record".equals(strategy.toString())) {
            throw new org.apache.kafka.common.config.ConfigException(SUBJECT_STRATEGY, strategy, "must be topic or topic-record");
        }
        this.perRecordSubjects = strategy != null && "topic-record".equals(strategy.toString());
        if (client == null) {
            Object url = configs.get(AvroSerdeConfig.SCHEMA_REGISTRY_URL);
            if (url == null || url.toString().isBlank()) {
                throw new org.apache.kafka.common.config.ConfigException(AvroSerdeConfig.SCHEMA_REGISTRY_URL
                        + " is required by " + getClass().getName());
            }
            client = new CachingSchemaRegistryClient(url.toString());
        }
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef().define(AvroSerdeConfig.SCHEMA_REGISTRY_URL, ConfigDef.Type.STRING,
                ConfigDef.Importance.HIGH, "Base URL(s) of the Confluent-compatible schema registry, comma-separated.")
                .define(SUBJECT_STRATEGY, ConfigDef.Type.STRING, "topic", ConfigDef.Importance.MEDIUM,
                        "topic: <topic>-key/-value; topic-record: <topic>-<record full name>.");
    }

    @Override
    public byte[] fromConnectData(String topic, org.apache.kafka.connect.data.Schema schema, Object value) {
        if (value == null && (schema == null || schema.isOptional())) {
            return null;
        }
        if (schema == null) {
            throw new DataException("cannot write a record for topic '" + topic + "': it has no Connect schema"
                    + " (schemaless data cannot be written as Avro)");
        }
        try {
            Schema avro;
            Object datum;
            synchronized (mapping) {
                avro = avroSchemas.computeIfAbsent(schema, mapping::toAvroSchema);
                datum = mapping.toAvroValue(schema, avro, value);
            }
            // No card number in clear on a topic, whatever a shop row holds (docs/pii.md): every text of
            // the record (strings, map keys, at any depth) has a card number's digits masked as '*'.
            datum = TextMasking.mask(datum, avro);
            int id = client.register(subject(topic, avro), avro);
            ByteArrayOutputStream out = new ByteArrayOutputStream(128);
            out.write(WireFormat.header(id));
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            new GenericDatumWriter<>(avro).write(datum, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (DataException e) {
            throw new DataException("cannot convert a record for topic '" + topic + "' to Avro: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            throw new DataException("cannot write a record for topic '" + topic + "' in the registry wire format: " + e, e);
        }
    }

    /** The registry subject a record of {@code topic} with {@code avro} is registered under. */
    String subject(String topic, Schema avro) {
        if (perRecordSubjects && (avro.getType() == Schema.Type.RECORD)) {
            return topic + "-" + avro.getFullName();
        }
        return topic + (isKey ? "-key" : "-value");
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) {
            return SchemaAndValue.NULL;
        }
        try {
            int id = WireFormat.schemaId(value, topic);
            Schema writer = writerSchemas.computeIfAbsent(id, client::getById);
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(
                    Arrays.copyOfRange(value, WireFormat.HEADER_SIZE, value.length), null);
            Object datum = new GenericDatumReader<>(writer).read(null, decoder);
            if (!decoder.isEnd()) {
                throw new DataException("trailing bytes after the record (schema id " + id + ")");
            }
            synchronized (mapping) {
                org.apache.kafka.connect.data.Schema connect = connectSchemas.computeIfAbsent(id, i -> mapping.toConnectSchema(writer));
                return new SchemaAndValue(connect, mapping.toConnectValue(connect, datum));
            }
        } catch (IOException | RuntimeException e) {
            throw new DataException("cannot read a record of topic '" + topic + "' in the registry wire format: " + e.getMessage(), e);
        }
    }
}
