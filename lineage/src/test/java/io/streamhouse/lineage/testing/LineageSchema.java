package io.streamhouse.lineage.testing;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Validates run events against the OpenLineage RunEvent schema ({@code openlineage/run-event.schema.json}, draft
 * 2020-12, formats asserted: date-time, uri, uuid) with networknt's json-schema-validator. Shared with the apps' tests.
 */
public final class LineageSchema {
    private static final Schema SCHEMA = load();

    private static Schema load() {
        try (InputStream in = LineageSchema.class.getResourceAsStream("/openlineage/run-event.schema.json")) {
            if (in == null) {
                throw new IllegalStateException("openlineage/run-event.schema.json is not on the test classpath");
            }
            return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The violations of one event (JSON), empty when it is valid. */
    public static List<String> violations(String json) {
        List<Error> errors = SCHEMA.validate(json, InputFormat.JSON,
                context -> context.executionConfig(config -> config.formatAssertionsEnabled(true)));
        return errors.stream().map(Error::toString).toList();
    }

    private LineageSchema() {
    }
}
