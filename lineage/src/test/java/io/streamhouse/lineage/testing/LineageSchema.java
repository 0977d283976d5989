package io.streamhouse.lineage.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Validates run events against the OpenLineage specification itself: {@code spec/OpenLineage.json} and the facet
 * schemas of the events we emit, vendored unchanged from OpenLineage 1.31.0 under {@code openlineage/spec/} (see its
 * NOTICE), with networknt's json-schema-validator (draft 2020-12, formats asserted). The event is checked against the
 * spec's {@code RunEvent} definition, and each facet against the schema its own {@code _schemaURL} names, under the
 * key that schema defines; a facet whose schema is not vendored is a violation, so a new facet cannot pass unchecked.
 * Shared with the apps' tests.
 */
public final class LineageSchema {
    /** The spec version of openlineage-java 1.31.0, the {@code $id} of the vendored OpenLineage.json. */
    public static final String SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json";
    private static final String SPEC_ROOT = "https://openlineage.io/spec/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemaIdResolvers(r -> r.mapPrefix(SPEC_ROOT, "classpath:openlineage/spec/")));
    private static final Schema RUN_EVENT = REGISTRY.getSchema(SchemaLocation.of(SPEC + "#/$defs/RunEvent"));

    /** The violations of one event (JSON), empty when it is valid. */
    public static List<String> violations(String json) {
        JsonNode event;
        try {
            event = JSON.readTree(json);
        } catch (IOException e) {
            return List.of("not JSON: " + e.getMessage());
        }
        List<String> found = new ArrayList<>(validate(RUN_EVENT, event, "event"));
        if (!event.path("schemaURL").asText().startsWith(SPEC + "#")) {
            found.add("schemaURL " + event.path("schemaURL") + " is not of the vendored spec " + SPEC);
        }
        facets(event.path("run").path("facets"), "run", found);
        facets(event.path("job").path("facets"), "job", found);
        for (String side : List.of("inputs", "outputs")) {
            int i = 0;
            for (JsonNode dataset : event.path(side)) {
                facets(dataset.path("facets"), side + "[" + i + "]", found);
                facets(dataset.path("inputFacets"), side + "[" + i + "].inputFacets", found);
                facets(dataset.path("outputFacets"), side + "[" + i + "].outputFacets", found);
                i++;
            }
        }
        return found;
    }

    private static void facets(JsonNode facets, String where, List<String> found) {
        for (Map.Entry<String, JsonNode> facet : facets.properties()) {
            String key = where + " facet " + facet.getKey();
            String url = facet.getValue().path("_schemaURL").asText();
            int hash = url.indexOf('#');
            String file = hash < 0 ? url : url.substring(0, hash);
            if (!file.startsWith(SPEC_ROOT) || LineageSchema.class.getResource(
                    "/openlineage/spec/" + file.substring(SPEC_ROOT.length())) == null) {
                found.add(key + ": its schema " + url + " is not vendored under openlineage/spec/");
                continue;
            }
            Schema schema = REGISTRY.getSchema(SchemaLocation.of(file));
            if (!schema.getSchemaNode().path("properties").has(facet.getKey())) {
                List<String> defined = new ArrayList<>();
                schema.getSchemaNode().path("properties").fieldNames().forEachRemaining(defined::add);
                found.add(key + ": " + file + " defines the facet under " + defined);
                continue;
            }
            ObjectNode wrapped = JSON.createObjectNode();
            wrapped.set(facet.getKey(), facet.getValue());
            found.addAll(validate(schema, wrapped, key));
        }
    }

    private static List<String> validate(Schema schema, JsonNode node, String where) {
        List<Error> errors = schema.validate(node, context -> context.executionConfig(config -> config.formatAssertionsEnabled(true)));
        return errors.stream().map(e -> where + ": " + e).toList();
    }

    /** The vendored spec file, for tests that read it. */
    public static InputStream specFile(String pathBelowSpec) {
        InputStream in = LineageSchema.class.getResourceAsStream("/openlineage/spec/" + pathBelowSpec);
        if (in == null) {
            throw new UncheckedIOException(new IOException("openlineage/spec/" + pathBelowSpec + " is not on the test classpath"));
        }
        return in;
    }

    private LineageSchema() {
    }
}
