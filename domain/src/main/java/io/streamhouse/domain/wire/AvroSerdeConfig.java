package io.streamhouse.domain.wire;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * Configuration keys read by {@link AvroSerializer#configure}, {@link AvroDeserializer#configure} and
 * {@link AvroSerde#configure}. The first two are Confluent's names, so a properties file written for Confluent's
 * serializers keeps working.
 */
public final class AvroSerdeConfig {

    /** Comma-separated registry base URLs, tried in order. */
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";

    /** {@code true} (default): register the writer schema; {@code false}: only look up an already registered one. */
    public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";

    /** Fully qualified name of the generated {@code SpecificRecord} class the deserializer reads into. */
    public static final String READER_CLASS = "streamhouse.avro.reader.class";

    /** Timeout of one registry HTTP request in milliseconds (default 10 000). */
    public static final String REQUEST_TIMEOUT_MS = "schema.registry.request.timeout.ms";

    static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private AvroSerdeConfig() {
    }

    static String registryUrl(Map<String, ?> configs) {
        Object url = configs.get(SCHEMA_REGISTRY_URL);
        if (url == null || url.toString().isBlank()) {
            throw new ConfigException(SCHEMA_REGISTRY_URL + " is required when no SchemaRegistryClient is given");
        }
        return url.toString();
    }

    static boolean autoRegister(Map<String, ?> configs) {
        Object value = configs.get(AUTO_REGISTER_SCHEMAS);
        if (value == null) {
            return true;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        String text = value.toString().trim();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new ConfigException(AUTO_REGISTER_SCHEMAS, value, "expected true or false");
    }

    static Duration requestTimeout(Map<String, ?> configs) {
        Object value = configs.get(REQUEST_TIMEOUT_MS);
        if (value == null) {
            return DEFAULT_REQUEST_TIMEOUT;
        }
        try {
            long millis = value instanceof Number n ? n.longValue() : Long.parseLong(value.toString().trim());
            if (millis <= 0) {
                throw new ConfigException(REQUEST_TIMEOUT_MS, value, "must be positive");
            }
            return Duration.ofMillis(millis);
        } catch (NumberFormatException e) {
            throw new ConfigException(REQUEST_TIMEOUT_MS, value, "expected milliseconds");
        }
    }

    static SchemaRegistryClient clientFrom(Map<String, ?> configs) {
        return new CachingSchemaRegistryClient(registryUrl(configs), requestTimeout(configs));
    }

    /** TopicNameStrategy: the subject of a topic's keys or values. */
    static String subjectName(String topic, boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }
}
