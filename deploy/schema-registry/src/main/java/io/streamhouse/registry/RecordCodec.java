package io.streamhouse.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.registry.StoreRecord.ConfigKey;
import io.streamhouse.registry.StoreRecord.ConfigValue;
import io.streamhouse.registry.StoreRecord.DeleteSubjectKey;
import io.streamhouse.registry.StoreRecord.DeleteSubjectValue;
import io.streamhouse.registry.StoreRecord.IdWatermarkKey;
import io.streamhouse.registry.StoreRecord.IdWatermarkValue;
import io.streamhouse.registry.StoreRecord.Key;
import io.streamhouse.registry.StoreRecord.SchemaKey;
import io.streamhouse.registry.StoreRecord.SchemaValue;
import io.streamhouse.registry.StoreRecord.Value;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * JSON for keys and values on the registry topic, shaped like Confluent's ({@code {"keytype":"SCHEMA",...}}).
 *
 * <p>Key bytes must be identical every time the same key is written, because compaction matches keys byte for byte:
 * fields are always written in the same order and absent fields are left out, never written as null.
 */
final class RecordCodec {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RecordCodec() {
    }

    static byte[] encodeKey(Key key) {
        ObjectNode node = JSON.createObjectNode();
        // Java 17 has no switch over sealed types: a new Key or Value type needs a branch here and below.
        if (key instanceof SchemaKey k) {
            node.put("keytype", "SCHEMA").put("subject", k.subject()).put("version", k.version());
        } else if (key instanceof ConfigKey k) {
            node.put("keytype", "CONFIG");
            if (k.subject() != null) {
                node.put("subject", k.subject());
            }
        } else if (key instanceof DeleteSubjectKey k) {
            node.put("keytype", "DELETE_SUBJECT").put("subject", k.subject());
        } else if (key instanceof IdWatermarkKey) {
            node.put("keytype", "ID_WATERMARK");
        } else {
            throw new IllegalArgumentException("unknown key " + key);
        }
        node.put("magic", 1);
        return bytes(node);
    }

    static byte[] encodeValue(Value value) {
        if (value == null) {
            return null;
        }
        ObjectNode node = JSON.createObjectNode();
        if (value instanceof SchemaValue v) {
            node.put("subject", v.subject()).put("version", v.version()).put("id", v.id())
                    .put("schemaType", v.schemaType()).put("schema", v.schema()).put("deleted", v.deleted());
        } else if (value instanceof ConfigValue v) {
            node.put("compatibilityLevel", v.compatibilityLevel().name());
        } else if (value instanceof DeleteSubjectValue v) {
            node.put("subject", v.subject()).put("version", v.version());
        } else if (value instanceof IdWatermarkValue v) {
            node.put("maxId", v.maxId());
        } else {
            throw new IllegalArgumentException("unknown value " + value);
        }
        return bytes(node);
    }

    /**
     * Decodes a record read from the topic; {@code null} for key types this version does not know (e.g. a newer
     * registry's), which the caller skips with a warning.
     *
     * @throws IllegalArgumentException if the bytes are not a registry record at all
     */
    static StoreRecord decode(byte[] keyBytes, byte[] valueBytes) {
        JsonNode key = tree(keyBytes, "key");
        JsonNode value = valueBytes == null ? null : tree(valueBytes, "value");
        String type = text(key, "keytype");
        return switch (type) {
            case "SCHEMA" -> new StoreRecord(new SchemaKey(text(key, "subject"), integer(key, "version")),
                    value == null ? null : new SchemaValue(text(value, "subject"), integer(value, "version"),
                            integer(value, "id"), text(value, "schema"),
                            value.hasNonNull("schemaType") ? value.get("schemaType").asText() : "AVRO",
                            value.path("deleted").asBoolean(false)));
            case "CONFIG" -> new StoreRecord(
                    new ConfigKey(key.hasNonNull("subject") ? key.get("subject").asText() : null),
                    value == null ? null
                            : new ConfigValue(CompatibilityLevel.valueOf(text(value, "compatibilityLevel"))));
            case "DELETE_SUBJECT" -> new StoreRecord(new DeleteSubjectKey(text(key, "subject")),
                    value == null ? null : new DeleteSubjectValue(text(value, "subject"), integer(value, "version")));
            case "ID_WATERMARK" -> new StoreRecord(IdWatermarkKey.INSTANCE,
                    value == null ? null : new IdWatermarkValue(integer(value, "maxId")));
            default -> null;
        };
    }

    private static byte[] bytes(ObjectNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode tree(byte[] bytes, String what) {
        if (bytes == null) {
            throw new IllegalArgumentException("record " + what + " is null");
        }
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("record " + what + " is not a JSON object: "
                        + new String(bytes, StandardCharsets.UTF_8));
            }
            return node;
        } catch (IOException e) {
            throw new IllegalArgumentException("record " + what + " is not JSON: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("missing text field '" + field + "' in " + node);
        }
        return value.asText();
    }

    private static int integer(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.canConvertToInt()) {
            throw new IllegalArgumentException("missing integer field '" + field + "' in " + node);
        }
        return value.intValue();
    }
}
