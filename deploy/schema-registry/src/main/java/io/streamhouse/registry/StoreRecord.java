package io.streamhouse.registry;

import java.util.Objects;

/**
 * One entry of the registry's log: a key saying what it is about and a value, or no value for a tombstone (a hard
 * delete, which compaction eventually removes). A key is written again to change its value: the newest value wins,
 * which is exactly what log compaction keeps.
 */
public record StoreRecord(Key key, Value value) {

    public StoreRecord {
        Objects.requireNonNull(key, "key");
        if (value != null && !key.accepts(value)) {
            throw new IllegalArgumentException(value.getClass().getSimpleName() + " cannot be stored under " + key);
        }
    }

    public static StoreRecord tombstone(Key key) {
        return new StoreRecord(key, null);
    }

    public boolean isTombstone() {
        return value == null;
    }

    /** What a record is about. Equal keys are the same log slot. */
    public sealed interface Key permits SchemaKey, ConfigKey, DeleteSubjectKey, IdWatermarkKey {
        boolean accepts(Value value);
    }

    /** What a record says. */
    public sealed interface Value permits SchemaValue, ConfigValue, DeleteSubjectValue, IdWatermarkValue {
    }

    /** One version of one subject. */
    public record SchemaKey(String subject, int version) implements Key {
        public SchemaKey {
            Objects.requireNonNull(subject, "subject");
        }

        @Override
        public boolean accepts(Value value) {
            return value instanceof SchemaValue v && v.subject().equals(subject) && v.version() == version;
        }
    }

    /**
     * A registered schema version. {@code schema} is the canonical Avro JSON ({@code Schema.toString()}), the form
     * ids are assigned by. {@code deleted} marks a soft delete of this one version.
     */
    public record SchemaValue(String subject, int version, int id, String schema, String schemaType, boolean deleted)
            implements Value {
        public SchemaValue {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(schema, "schema");
            Objects.requireNonNull(schemaType, "schemaType");
            if (version < 1 || id < 1) {
                throw new IllegalArgumentException("version and id start at 1: " + version + ", " + id);
            }
        }

        SchemaValue softDeleted() {
            return new SchemaValue(subject, version, id, schema, schemaType, true);
        }
    }

    /** The compatibility level of one subject, or the global default when {@code subject} is null. */
    public record ConfigKey(String subject) implements Key {
        public static final ConfigKey GLOBAL = new ConfigKey(null);

        @Override
        public boolean accepts(Value value) {
            return value instanceof ConfigValue;
        }
    }

    public record ConfigValue(CompatibilityLevel compatibilityLevel) implements Value {
        public ConfigValue {
            Objects.requireNonNull(compatibilityLevel, "compatibilityLevel");
        }
    }

    /**
     * A soft delete of a whole subject: every version up to {@code version} counts as deleted. A marker instead of
     * rewriting every version, as Confluent does; versions registered later are above it and live.
     */
    public record DeleteSubjectKey(String subject) implements Key {
        public DeleteSubjectKey {
            Objects.requireNonNull(subject, "subject");
        }

        @Override
        public boolean accepts(Value value) {
            return value instanceof DeleteSubjectValue v && v.subject().equals(subject);
        }
    }

    public record DeleteSubjectValue(String subject, int version) implements Value {
    }

    /**
     * The highest id ever handed out. Written before hard deletes: once compaction drops a hard-deleted schema, its id
     * would otherwise look free after a restart, and reusing it would make old bytes on topics decode with the wrong
     * schema.
     */
    public record IdWatermarkKey() implements Key {
        public static final IdWatermarkKey INSTANCE = new IdWatermarkKey();

        @Override
        public boolean accepts(Value value) {
            return value instanceof IdWatermarkValue;
        }
    }

    public record IdWatermarkValue(int maxId) implements Value {
    }
}
