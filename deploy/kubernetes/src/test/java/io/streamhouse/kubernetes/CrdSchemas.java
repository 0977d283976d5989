package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The vendored CRDs' {@code openAPIV3Schema}s (src/test/resources/crds, README there), as JSON Schemas a validator
 * checks a custom resource against. The API server is stricter than a plain reading of the schema, so the conversion
 * is too:
 * <ul>
 *   <li>an object schema with {@code properties} refuses other fields ({@code additionalProperties: false}), as
 *       {@code kubectl apply}'s strict field validation does, unless it says {@code x-kubernetes-preserve-unknown-fields};</li>
 *   <li>{@code nullable: true} admits {@code null}; {@code x-kubernetes-int-or-string} admits an integer or a string;</li>
 *   <li>{@code x-kubernetes-validations} (CEL rules) are not evaluated: {@link #celRules()} counts them.</li>
 * </ul>
 * Draft 4, whose {@code items} and boolean {@code exclusiveMinimum} are OpenAPI 3.0's.
 */
final class CrdSchemas {
    private static final Path ROOT = Path.of("src/test/resources/crds");
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4);

    /** {@code group/version Kind} → its converted schema. */
    private final Map<String, Schema> schemas = new HashMap<>();
    private final Map<String, JsonNode> converted = new HashMap<>();
    private int celRules;

    static CrdSchemas load() {
        CrdSchemas s = new CrdSchemas();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(ROOT)) {
            files = walk.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path file : files) {
            for (Manifests.Doc crd : Manifests.read(file)) {
                if (!crd.kind().equals("CustomResourceDefinition")) {
                    continue;
                }
                JsonNode spec = crd.node().path("spec");
                String group = spec.path("group").asText();
                String kind = spec.path("names").path("kind").asText();
                for (JsonNode version : spec.path("versions")) {
                    if (!version.path("served").asBoolean()) {
                        continue;
                    }
                    ObjectNode schema = (ObjectNode) s.convert(version.path("schema").path("openAPIV3Schema"), false);
                    // Every object of the API carries these, whether or not the CRD's schema names them.
                    ObjectNode root = schema.has("properties") ? (ObjectNode) schema.get("properties") : schema.putObject("properties");
                    if (!root.has("apiVersion")) {
                        root.putObject("apiVersion").put("type", "string");
                    }
                    if (!root.has("kind")) {
                        root.putObject("kind").put("type", "string");
                    }
                    if (!root.has("metadata")) {
                        root.putObject("metadata").put("type", "object");
                    }
                    String key = group + "/" + version.path("name").asText() + " " + kind;
                    s.converted.put(key, schema);
                    s.schemas.put(key, REGISTRY.getSchema(schema));
                }
            }
        }
        return s;
    }

    /** The kinds with a schema, as {@code group/version Kind}. */
    Set<String> kinds() {
        return schemas.keySet();
    }

    /** CEL rules seen in the schemas and not evaluated here. */
    int celRules() {
        return celRules;
    }

    /** The converted schema, for tests of the conversion. */
    Optional<JsonNode> schemaOf(String apiVersion, String kind) {
        return Optional.ofNullable(converted.get(apiVersion + " " + kind));
    }

    /** Empty when {@code resource} is valid; else each violation with the resource's path. Empty schema: one line. */
    List<String> violations(JsonNode resource) {
        String key = resource.path("apiVersion").asText() + " " + resource.path("kind").asText();
        Schema schema = schemas.get(key);
        if (schema == null) {
            return List.of("no vendored CRD serves " + key + " (have " + schemas.keySet() + ")");
        }
        List<String> found = new ArrayList<>();
        for (Error e : schema.validate(resource)) {
            found.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return found;
    }

    /** @param branch inside allOf/anyOf/oneOf/not: a constraint on the fields, not their definition (left open) */
    private JsonNode convert(JsonNode node, boolean branch) {
        if (!node.isObject()) {
            return node;
        }
        ObjectNode out = JSON.objectNode();
        boolean preserveUnknown = node.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        if (node.has("x-kubernetes-validations")) {
            celRules += node.get("x-kubernetes-validations").size();
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String k = e.getKey();
            JsonNode v = e.getValue();
            if (k.startsWith("x-kubernetes-") || k.equals("nullable") || k.equals("description") || k.equals("example")) {
                continue;
            }
            switch (k) {
                case "properties" -> {
                    ObjectNode props = out.putObject("properties");
                    v.fields().forEachRemaining(p -> props.set(p.getKey(), convert(p.getValue(), false)));
                }
                case "items", "additionalProperties" -> out.set(k, convert(v, false));
                case "not" -> out.set(k, convert(v, true));
                case "allOf", "anyOf", "oneOf" -> {
                    ArrayNode list = out.putArray(k);
                    v.forEach(item -> list.add(convert(item, true)));
                }
                default -> out.set(k, v);
            }
        }
        if (node.path("x-kubernetes-int-or-string").asBoolean(false)) {
            out.remove("type");
            ArrayNode anyOf = out.putArray("anyOf");
            anyOf.addObject().put("type", "integer");
            anyOf.addObject().put("type", "string");
        }
        if (node.path("nullable").asBoolean(false) && out.has("type") && out.get("type").isTextual()) {
            ArrayNode types = JSON.arrayNode().add(out.get("type").asText()).add("null");
            out.set("type", types);
        }
        if (out.has("properties") && !out.has("additionalProperties") && !preserveUnknown && !branch) {
            out.put("additionalProperties", false);
        }
        return out;
    }
}
