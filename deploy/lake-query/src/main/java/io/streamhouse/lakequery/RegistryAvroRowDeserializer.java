package io.streamhouse.lakequery;

import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decodes one wire-format record into a row of the reader schema. A {@code null} value (a tombstone) is skipped. A
 * record that cannot be decoded fails the query with an {@link IOException} naming the topic, the schema id and the
 * cause: a snapshot query never answers from a silently thinned log (the live path sends such records to
 * {@code <topic>.dlq}; the query surfaces them).
 */
final class RegistryAvroRowDeserializer implements DeserializationSchema<RowData> {

    private static final long serialVersionUID = 1L;

    private final String registryUrl;
    private final String topic;
    private final AvroRows.SchemaText readerText;
    private final TypeInformation<RowData> producedType;
    private transient Schema reader;
    private transient CachingSchemaRegistryClient registry;
    private transient Map<Integer, GenericDatumReader<Object>> readers;
    private transient BinaryDecoder decoder;

    RegistryAvroRowDeserializer(String registryUrl, String topic, AvroRows.SchemaText readerText, TypeInformation<RowData> producedType) {
        this.registryUrl = registryUrl;
        this.topic = topic;
        this.readerText = readerText;
        this.producedType = producedType;
    }

    @Override
    public void open(InitializationContext context) {
        reader = readerText.parse();
        registry = new CachingSchemaRegistryClient(registryUrl);
        readers = new ConcurrentHashMap<>();
    }

    @Override
    public RowData deserialize(byte[] message) throws IOException {
        if (message == null) {
            return null;
        }
        int id;
        try {
            id = WireFormat.schemaId(message, topic);
        } catch (RuntimeException e) {
            throw new IOException(e.getMessage(), e);
        }
        GenericDatumReader<Object> datumReader = readers.get(id);
        if (datumReader == null) {
            datumReader = newReader(id);
            readers.put(id, datumReader);
        }
        decoder = DecoderFactory.get().binaryDecoder(message, WireFormat.HEADER_SIZE, message.length - WireFormat.HEADER_SIZE, decoder);
        Object record;
        try {
            record = datumReader.read(null, decoder);
        } catch (IOException | RuntimeException e) {
            throw new IOException("topic " + topic + ", schema id " + id + ": cannot decode the Avro body ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
        }
        if (!decoder.isEnd()) {
            throw new IOException("topic " + topic + ", schema id " + id + ": trailing bytes after the record");
        }
        return (RowData) AvroRows.toInternal(reader, record);
    }

    private GenericDatumReader<Object> newReader(int id) throws IOException {
        Schema writer;
        try {
            writer = registry.getById(id);
        } catch (RuntimeException e) {
            throw new IOException("topic " + topic + ": writer schema id " + id + " not available from the registry: "
                    + e.getMessage(), e);
        }
        SchemaCompatibility.SchemaPairCompatibility compatibility = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
        if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            throw new IOException("topic " + topic + ": writer schema id " + id + " cannot be read as "
                    + reader.getFullName() + ": " + compatibility.getResult().getIncompatibilities());
        }
        // Plain generic data, no logical-type conversions: AvroRows converts decimals and timestamps itself.
        return new GenericDatumReader<>(writer, reader, new GenericData());
    }

    @Override
    public boolean isEndOfStream(RowData next) {
        return false;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
