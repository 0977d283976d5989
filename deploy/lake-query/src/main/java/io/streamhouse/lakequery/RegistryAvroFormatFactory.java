package io.streamhouse.lakequery;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;

import java.util.Set;

/**
 * Flink format {@value #IDENTIFIER}: our registry wire format (magic byte 0, 4-byte schema id, Avro binary). The
 * writer's schema is fetched from the registry by the id in each record (once per id) and resolved into the reader
 * schema, which is the topic's current schema from {@code domain} (option {@code reader-class}), so records written
 * with older versions read as the current one.
 *
 * <p>Exists because Flink's {@code avro-confluent} format needs Confluent's client jars, which Maven Central does not
 * serve. Decoding only: the query service never writes.
 */
public final class RegistryAvroFormatFactory implements DeserializationFormatFactory {

    public static final String IDENTIFIER = "streamhouse-avro";

    public static final ConfigOption<String> REGISTRY_URL = ConfigOptions.key("registry-url").stringType().noDefaultValue()
            .withDescription("Base URL(s) of the schema registry, comma-separated.");
    public static final ConfigOption<String> READER_CLASS = ConfigOptions.key("reader-class").stringType().noDefaultValue()
            .withDescription("The generated Avro class whose schema records are read into.");

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(DynamicTableFactory.Context context,
                                                                             ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        String registryUrl = formatOptions.get(REGISTRY_URL);
        Schema reader = readerSchema(formatOptions.get(READER_CLASS));
        String topic = context.getCatalogTable().getOptions().getOrDefault("topic", context.getObjectIdentifier().asSummaryString());
        return new DecodingFormat<>() {
            @Override
            public DeserializationSchema<RowData> createRuntimeDecoder(DynamicTableSource.Context sourceContext, DataType physicalType) {
                DataType expected = AvroRows.dataType(reader);
                if (!physicalType.getLogicalType().copy(true).equals(expected.getLogicalType().copy(true))) {
                    throw new ValidationException("format " + IDENTIFIER + " for topic " + topic + " reads " + expected
                            + " but the table's value columns are " + physicalType);
                }
                return new RegistryAvroRowDeserializer(registryUrl, topic, new AvroRows.SchemaText(reader.toString()),
                        sourceContext.createTypeInformation(physicalType));
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return ChangelogMode.insertOnly();
            }
        };
    }

    static Schema readerSchema(String className) {
        Class<?> type;
        try {
            type = Class.forName(className, false, RegistryAvroFormatFactory.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ValidationException("format " + IDENTIFIER + ": reader-class " + className + " not found");
        }
        Schema schema = SpecificData.get().getSchema(type);
        if (schema.getType() != Schema.Type.RECORD) {
            throw new ValidationException("format " + IDENTIFIER + ": reader-class " + className + " is not an Avro record");
        }
        return schema;
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(REGISTRY_URL, READER_CLASS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }
}
