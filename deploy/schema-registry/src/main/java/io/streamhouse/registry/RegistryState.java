package io.streamhouse.registry;

import io.streamhouse.registry.StoreRecord.ConfigKey;
import io.streamhouse.registry.StoreRecord.ConfigValue;
import io.streamhouse.registry.StoreRecord.DeleteSubjectKey;
import io.streamhouse.registry.StoreRecord.DeleteSubjectValue;
import io.streamhouse.registry.StoreRecord.IdWatermarkKey;
import io.streamhouse.registry.StoreRecord.IdWatermarkValue;
import io.streamhouse.registry.StoreRecord.SchemaKey;
import io.streamhouse.registry.StoreRecord.SchemaValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * The registry's memory: a fold over the log. {@link #apply} is the only way it changes, both when the log is
 * replayed at start-up and after each acknowledged write, so what a restarted registry knows is exactly what the
 * running one had answered.
 *
 * <p>Not thread-safe by itself; {@link Registry} guards it with a read/write lock.
 */
final class RegistryState {

    private final Map<String, TreeMap<Integer, SchemaValue>> versionsBySubject = new HashMap<>();
    private final Map<String, Integer> deleteWatermarks = new HashMap<>();
    private final Map<String, CompatibilityLevel> subjectLevels = new HashMap<>();
    private CompatibilityLevel globalLevel;
    private final Map<Integer, String> schemaById = new HashMap<>();
    private final Map<String, Integer> idBySchema = new HashMap<>();
    private final Map<Integer, Integer> versionsUsingId = new HashMap<>();
    private final Map<String, Schema> parsed = new ConcurrentHashMap<>();
    private int maxId;

    void apply(StoreRecord record) {
        StoreRecord.Key key = record.key();
        if (key instanceof SchemaKey k) {
            applySchema(k, (SchemaValue) record.value());
        } else if (key instanceof ConfigKey k) {
            ConfigValue value = (ConfigValue) record.value();
            if (k.subject() == null) {
                globalLevel = value == null ? null : value.compatibilityLevel();
            } else if (value == null) {
                subjectLevels.remove(k.subject());
            } else {
                subjectLevels.put(k.subject(), value.compatibilityLevel());
            }
        } else if (key instanceof DeleteSubjectKey k) {
            DeleteSubjectValue value = (DeleteSubjectValue) record.value();
            if (value == null) {
                deleteWatermarks.remove(k.subject());
            } else {
                deleteWatermarks.put(k.subject(), value.version());
            }
        } else if (key instanceof IdWatermarkKey) {
            IdWatermarkValue value = (IdWatermarkValue) record.value();
            if (value != null) {
                maxId = Math.max(maxId, value.maxId());
            }
        }
    }

    private void applySchema(SchemaKey key, SchemaValue value) {
        TreeMap<Integer, SchemaValue> versions = versionsBySubject.get(key.subject());
        SchemaValue previous = versions == null ? null : versions.get(key.version());
        if (previous != null) {
            release(previous);
        }
        if (value == null) {
            if (versions != null) {
                versions.remove(key.version());
                if (versions.isEmpty()) {
                    versionsBySubject.remove(key.subject());
                }
            }
            return;
        }
        versionsBySubject.computeIfAbsent(key.subject(), s -> new TreeMap<>()).put(key.version(), value);
        versionsUsingId.merge(value.id(), 1, Integer::sum);
        schemaById.put(value.id(), value.schema());
        idBySchema.putIfAbsent(value.schema(), value.id());
        maxId = Math.max(maxId, value.id());
    }

    /** An id lives as long as one version (live or soft-deleted) uses it. */
    private void release(SchemaValue value) {
        int left = versionsUsingId.merge(value.id(), -1, Integer::sum);
        if (left <= 0) {
            versionsUsingId.remove(value.id());
            schemaById.remove(value.id());
            idBySchema.remove(value.schema(), value.id());
        }
    }

    boolean isDeleted(SchemaValue value) {
        return value.deleted() || value.version() <= deleteWatermarks.getOrDefault(value.subject(), 0);
    }

    /** Versions of a subject, oldest first; soft-deleted ones only if asked for. */
    List<SchemaValue> versions(String subject, boolean includeDeleted) {
        TreeMap<Integer, SchemaValue> versions = versionsBySubject.get(subject);
        if (versions == null) {
            return List.of();
        }
        List<SchemaValue> result = new ArrayList<>();
        for (SchemaValue value : versions.values()) {
            if (includeDeleted || !isDeleted(value)) {
                result.add(value);
            }
        }
        return result;
    }

    Optional<SchemaValue> version(String subject, int version) {
        TreeMap<Integer, SchemaValue> versions = versionsBySubject.get(subject);
        return Optional.ofNullable(versions == null ? null : versions.get(version));
    }

    /** Versions keep counting after soft deletes; only a permanent delete of the whole subject starts again at 1. */
    int nextVersion(String subject) {
        TreeMap<Integer, SchemaValue> versions = versionsBySubject.get(subject);
        int highest = versions == null || versions.isEmpty() ? 0 : versions.lastKey();
        return Math.max(highest, deleteWatermarks.getOrDefault(subject, 0)) + 1;
    }

    List<String> subjects(boolean includeDeleted) {
        TreeSet<String> subjects = new TreeSet<>();
        for (String subject : versionsBySubject.keySet()) {
            if (!versions(subject, includeDeleted).isEmpty()) {
                subjects.add(subject);
            }
        }
        return List.copyOf(subjects);
    }

    boolean hasDeleteMarker(String subject) {
        return deleteWatermarks.containsKey(subject);
    }

    OptionalInt idOf(String canonicalSchema) {
        Integer id = idBySchema.get(canonicalSchema);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    Optional<String> schemaText(int id) {
        return Optional.ofNullable(schemaById.get(id));
    }

    /** The parsed form of a stored canonical schema, parsed once. */
    Schema parsed(String canonicalSchema) {
        return parsed.computeIfAbsent(canonicalSchema, text -> new Schema.Parser().parse(text));
    }

    /** Every (subject, version) using an id, subjects sorted, versions ascending. */
    List<SchemaValue> usesOf(int id, boolean includeDeleted) {
        List<SchemaValue> uses = new ArrayList<>();
        new TreeMap<>(versionsBySubject).forEach((subject, versions) -> versions.values().forEach(value -> {
            if (value.id() == id && (includeDeleted || !isDeleted(value))) {
                uses.add(value);
            }
        }));
        return uses;
    }

    int maxId() {
        return maxId;
    }

    Optional<CompatibilityLevel> subjectLevel(String subject) {
        return Optional.ofNullable(subjectLevels.get(subject));
    }

    CompatibilityLevel globalLevel() {
        return globalLevel == null ? CompatibilityLevel.BACKWARD : globalLevel;
    }

    CompatibilityLevel effectiveLevel(String subject) {
        return subjectLevel(subject).orElse(globalLevel());
    }
}
