package io.streamhouse.domain.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.kafka.common.errors.SerializationException;

/** Schema helpers for what goes to the registry. */
final class AvroSchemas {

    /** Added by avro-maven-plugin's {@code stringType=String}; only Java's code generator reads it. */
    static final String JAVA_STRING_PROPERTY = "avro.java.string";

    private static final ObjectMapper JSON = new ObjectMapper();

    private AvroSchemas() {
    }

    /**
     * The schema as other languages write it: without {@code avro.java.string} properties. The registry assigns ids
     * by exact schema text, so registering the generated class's schema as-is would give a Java producer another id
     * than a Node or Python producer of the same .avsc, and lookups of a schema registered from the .avsc (by a deploy
     * step) would fail. The property changes nothing in the binary encoding.
     */
    static Schema withoutJavaProperties(Schema schema) {
        String json = schema.toString();
        if (!json.contains('"' + JAVA_STRING_PROPERTY + '"')) {
            return schema;
        }
        try {
            JsonNode tree = JSON.readTree(json);
            strip(tree);
            return new Schema.Parser().parse(tree.toString());
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Cannot remove Java-only properties from schema "
                    + schema.getFullName() + ": " + e.getMessage(), e);
        }
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove(JAVA_STRING_PROPERTY);
        }
        node.forEach(AvroSchemas::strip);
    }
}
