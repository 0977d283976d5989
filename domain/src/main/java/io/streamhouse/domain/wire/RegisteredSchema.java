package io.streamhouse.domain.wire;

import java.util.Objects;
import org.apache.avro.Schema;

/** One version of a subject as the registry reports it. */
public record RegisteredSchema(String subject, int version, int id, Schema schema) {
    public RegisteredSchema {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(schema, "schema");
        if (version < 1) {
            throw new IllegalArgumentException("version must be >= 1, was " + version);
        }
        if (id < 0) {
            throw new IllegalArgumentException("id must be >= 0, was " + id);
        }
    }
}
