package io.streamhouse.registry;

import io.streamhouse.registry.CompatibilityLevel.Previous;
import io.streamhouse.registry.StoreRecord.ConfigKey;
import io.streamhouse.registry.StoreRecord.ConfigValue;
import io.streamhouse.registry.StoreRecord.DeleteSubjectKey;
import io.streamhouse.registry.StoreRecord.DeleteSubjectValue;
import io.streamhouse.registry.StoreRecord.IdWatermarkKey;
import io.streamhouse.registry.StoreRecord.IdWatermarkValue;
import io.streamhouse.registry.StoreRecord.SchemaKey;
import io.streamhouse.registry.StoreRecord.SchemaValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's rules, independent of HTTP: how ids and versions are handed out, what compatibility means, what a
 * soft and a hard delete do. Mirrors Confluent Schema Registry's behaviour wherever clients can observe it:
 *
 * <ul>
 *   <li>Ids are global: a schema gets one id however many subjects register it; registering a schema that is already
 *       a live version of the subject returns that version's id and writes nothing (idempotent).</li>
 *   <li>"Same schema" means same canonical Avro JSON ({@code Schema.toString()} of the parsed schema): whitespace
 *       does not matter, docs and defaults do.</li>
 *   <li>Versions count up per subject and are never reused while any trace of the subject remains.</li>
 *   <li>A new version must be compatible with the live versions the subject's level names (latest, or all for the
 *       transitive levels), else 409.</li>
 *   <li>Deletes are soft first (versions hidden but their ids keep resolving, since bytes on topics carry them), and
 *       hard only after soft. Ids are never reused, even after hard deletes.</li>
 * </ul>
 *
 * <p>Writes are serialized (one at a time, each acknowledged by the store before the answer); reads run in parallel.
 * If the store fails to confirm a write, the answer is 50001 and the state is rebuilt from the store before the next
 * write, because the write may have landed anyway.
 */
public final class Registry implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Registry.class);

    /** Version selector for "latest" (also written as -1). */
    public static final int LATEST = -1;

    private final SchemaStore store;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private RegistryState state;
    private boolean reloadBeforeNextWrite;

    /** What a client sent to register, look up or check a schema. */
    public record SchemaRequest(String schema, String schemaType, boolean hasReferences) {
    }

    public Registry(SchemaStore store) {
        this.store = Objects.requireNonNull(store, "store");
        this.state = load();
    }

    private RegistryState load() {
        RegistryState fresh = new RegistryState();
        long[] count = {0};
        store.replay(record -> {
            fresh.apply(record);
            count[0]++;
        });
        LOG.info("Loaded {} records from {}: {} live subjects, max id {}", count[0], store.describe(),
                fresh.subjects(false).size(), fresh.maxId());
        return fresh;
    }

    // ---- schemas and subjects ----

    public int register(String subject, SchemaRequest request) {
        Schema schema = parse(request);
        String canonical = schema.toString();
        return write("registering a schema", () -> {
            List<SchemaValue> live = state.versions(subject, false);
            for (SchemaValue version : live) {
                if (version.schema().equals(canonical)) {
                    return version.id();
                }
            }
            CompatibilityLevel level = state.effectiveLevel(subject);
            List<String> problems = level.check(schema, previousFor(level, live));
            if (!problems.isEmpty()) {
                throw RegistryException.incompatible(subject, problems);
            }
            int id = state.idOf(canonical).orElse(state.maxId() + 1);
            int version = state.nextVersion(subject);
            append(new StoreRecord(new SchemaKey(subject, version),
                    new SchemaValue(subject, version, id, canonical, "AVRO", false)));
            LOG.info("Registered subject '{}' version {} with id {}", subject, version, id);
            return id;
        });
    }

    /** The version of {@code subject} whose schema equals the one sent (POST /subjects/{subject}). */
    public SchemaValue lookup(String subject, SchemaRequest request, boolean includeDeleted) {
        String canonical = parse(request).toString();
        return read(() -> {
            List<SchemaValue> versions = state.versions(subject, includeDeleted);
            if (versions.isEmpty()) {
                throw RegistryException.subjectNotFound(subject);
            }
            return versions.stream()
                    .filter(v -> v.schema().equals(canonical))
                    .reduce((first, second) -> second)
                    .orElseThrow(() -> RegistryException.schemaNotFoundUnderSubject(subject));
        });
    }

    public List<String> subjects(boolean includeDeleted) {
        return read(() -> state.subjects(includeDeleted));
    }

    public List<Integer> versions(String subject, boolean includeDeleted) {
        return read(() -> {
            List<SchemaValue> versions = state.versions(subject, includeDeleted);
            if (versions.isEmpty()) {
                throw RegistryException.subjectNotFound(subject);
            }
            return versions.stream().map(SchemaValue::version).toList();
        });
    }

    public SchemaValue version(String subject, int version, boolean includeDeleted) {
        return read(() -> {
            List<SchemaValue> visible = state.versions(subject, includeDeleted);
            if (visible.isEmpty()) {
                throw RegistryException.subjectNotFound(subject);
            }
            if (version == LATEST) {
                return visible.get(visible.size() - 1);
            }
            return state.version(subject, version)
                    .filter(v -> includeDeleted || !state.isDeleted(v))
                    .orElseThrow(() -> RegistryException.versionNotFound(version));
        });
    }

    /** Soft delete hides every live version; permanent delete removes a soft-deleted subject for good. */
    public List<Integer> deleteSubject(String subject, boolean permanent) {
        return write("deleting a subject", () -> {
            List<SchemaValue> all = state.versions(subject, true);
            if (all.isEmpty()) {
                throw RegistryException.subjectNotFound(subject);
            }
            List<SchemaValue> live = state.versions(subject, false);
            if (!permanent) {
                if (live.isEmpty()) {
                    throw RegistryException.subjectSoftDeleted(subject);
                }
                int newest = all.get(all.size() - 1).version();
                append(new StoreRecord(new DeleteSubjectKey(subject), new DeleteSubjectValue(subject, newest)));
                // As Confluent: a deleted subject forgets its own compatibility level.
                if (state.subjectLevel(subject).isPresent()) {
                    append(StoreRecord.tombstone(new ConfigKey(subject)));
                }
                LOG.info("Soft-deleted subject '{}' versions {}", subject, numbers(live));
                return numbers(live);
            }
            if (!live.isEmpty()) {
                throw RegistryException.subjectNotSoftDeleted(subject);
            }
            protectIds();
            for (SchemaValue version : all) {
                append(StoreRecord.tombstone(new SchemaKey(subject, version.version())));
            }
            if (state.hasDeleteMarker(subject)) {
                append(StoreRecord.tombstone(new DeleteSubjectKey(subject)));
            }
            LOG.info("Permanently deleted subject '{}' versions {}", subject, numbers(all));
            return numbers(all);
        });
    }

    public int deleteVersion(String subject, int version, boolean permanent) {
        return write("deleting a version", () -> {
            List<SchemaValue> all = state.versions(subject, true);
            if (all.isEmpty()) {
                throw RegistryException.subjectNotFound(subject);
            }
            SchemaValue target;
            if (version == LATEST) {
                List<SchemaValue> candidates = permanent ? all : state.versions(subject, false);
                if (candidates.isEmpty()) {
                    throw RegistryException.subjectSoftDeleted(subject);
                }
                target = candidates.get(candidates.size() - 1);
            } else {
                target = state.version(subject, version).orElseThrow(() -> RegistryException.versionNotFound(version));
            }
            boolean deleted = state.isDeleted(target);
            if (!permanent) {
                if (deleted) {
                    throw RegistryException.versionSoftDeleted(subject, target.version());
                }
                append(new StoreRecord(new SchemaKey(subject, target.version()), target.softDeleted()));
            } else {
                if (!deleted) {
                    throw RegistryException.versionNotSoftDeleted(subject, target.version());
                }
                protectIds();
                append(StoreRecord.tombstone(new SchemaKey(subject, target.version())));
            }
            LOG.info("{} subject '{}' version {}", permanent ? "Permanently deleted" : "Soft-deleted", subject,
                    target.version());
            return target.version();
        });
    }

    /** Before anything is hard-deleted, remember the highest id so that no later schema can get it again. */
    private void protectIds() {
        append(new StoreRecord(IdWatermarkKey.INSTANCE, new IdWatermarkValue(state.maxId())));
    }

    // ---- ids ----

    public String schemaById(int id) {
        return read(() -> state.schemaText(id).orElseThrow(() -> RegistryException.schemaNotFound(id)));
    }

    /** The (subject, version) pairs that use an id. */
    public List<SchemaValue> usesOfId(int id, boolean includeDeleted) {
        return read(() -> {
            if (state.schemaText(id).isEmpty()) {
                throw RegistryException.schemaNotFound(id);
            }
            return state.usesOf(id, includeDeleted);
        });
    }

    // ---- compatibility ----

    public CompatibilityLevel globalLevel() {
        return read(state::globalLevel);
    }

    public CompatibilityLevel setGlobalLevel(CompatibilityLevel level) {
        return write("updating the global compatibility level", () -> {
            append(new StoreRecord(ConfigKey.GLOBAL, new ConfigValue(level)));
            return level;
        });
    }

    /** Back to the default (BACKWARD); returns the level that was in force. */
    public CompatibilityLevel resetGlobalLevel() {
        return write("resetting the global compatibility level", () -> {
            CompatibilityLevel previous = state.globalLevel();
            append(StoreRecord.tombstone(ConfigKey.GLOBAL));
            return previous;
        });
    }

    public Optional<CompatibilityLevel> subjectLevel(String subject) {
        return read(() -> state.subjectLevel(subject));
    }

    public CompatibilityLevel setSubjectLevel(String subject, CompatibilityLevel level) {
        return write("updating a subject's compatibility level", () -> {
            append(new StoreRecord(new ConfigKey(subject), new ConfigValue(level)));
            return level;
        });
    }

    /** Removes a subject's own level, so the global one applies again; returns the level that was removed. */
    public CompatibilityLevel deleteSubjectLevel(String subject) {
        return write("deleting a subject's compatibility level", () -> {
            Optional<CompatibilityLevel> own = state.subjectLevel(subject);
            if (own.isEmpty()) {
                if (state.versions(subject, true).isEmpty()) {
                    throw RegistryException.subjectNotFound(subject);
                }
                throw RegistryException.subjectCompatibilityNotConfigured(subject);
            }
            append(StoreRecord.tombstone(new ConfigKey(subject)));
            return own.get();
        });
    }

    /**
     * Why {@code request} could not be registered after the given version (or the latest); empty if it could. A
     * subject without live versions accepts anything at "latest", as Confluent does.
     */
    public List<String> checkAgainstVersion(String subject, int version, SchemaRequest request) {
        Schema schema = parse(request);
        return read(() -> {
            CompatibilityLevel level = state.effectiveLevel(subject);
            List<SchemaValue> live = state.versions(subject, false);
            SchemaValue against;
            if (version == LATEST) {
                if (live.isEmpty()) {
                    return List.of();
                }
                against = live.get(live.size() - 1);
            } else {
                if (state.versions(subject, true).isEmpty()) {
                    throw RegistryException.subjectNotFound(subject);
                }
                against = state.version(subject, version)
                        .filter(v -> !state.isDeleted(v))
                        .orElseThrow(() -> RegistryException.versionNotFound(version));
            }
            return level.check(schema, List.of(new Previous(against.version(), state.parsed(against.schema()))));
        });
    }

    /** The check a registration would face: the versions the subject's level names. */
    public List<String> checkAgainstSubject(String subject, SchemaRequest request) {
        Schema schema = parse(request);
        return read(() -> {
            CompatibilityLevel level = state.effectiveLevel(subject);
            return level.check(schema, previousFor(level, state.versions(subject, false)));
        });
    }

    /** Newest first: the latest live version only, or every live one for the transitive levels. */
    private List<Previous> previousFor(CompatibilityLevel level, List<SchemaValue> live) {
        if (live.isEmpty()) {
            return List.of();
        }
        List<SchemaValue> chosen = level.transitive() ? live : live.subList(live.size() - 1, live.size());
        List<Previous> previous = new ArrayList<>();
        for (int i = chosen.size() - 1; i >= 0; i--) {
            SchemaValue value = chosen.get(i);
            previous.add(new Previous(value.version(), state.parsed(value.schema())));
        }
        return previous;
    }

    // ---- plumbing ----

    static Schema parse(SchemaRequest request) {
        String type = request.schemaType();
        if (type != null && !type.equals("AVRO")) {
            throw RegistryException.invalidSchema("schema type '" + type + "' is not supported; this registry"
                    + " stores AVRO only");
        }
        if (request.hasReferences()) {
            throw RegistryException.invalidSchema("schema references are not supported by this registry");
        }
        if (request.schema() == null || request.schema().isBlank()) {
            throw RegistryException.invalidSchema("empty schema");
        }
        try {
            return new Schema.Parser().parse(request.schema());
        } catch (RuntimeException e) {
            throw RegistryException.invalidSchema("Avro could not parse it: " + e.getMessage());
        }
    }

    private static List<Integer> numbers(List<SchemaValue> versions) {
        return versions.stream().map(SchemaValue::version).toList();
    }

    private <T> T read(Supplier<T> query) {
        lock.readLock().lock();
        try {
            return query.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    private <T> T write(String action, Supplier<T> change) {
        lock.writeLock().lock();
        try {
            if (reloadBeforeNextWrite) {
                try {
                    state = load();
                } catch (RuntimeException e) {
                    throw RegistryException.storeFailure("re-reading the store after a failed write", e);
                }
                reloadBeforeNextWrite = false;
            }
            try {
                return change.get();
            } catch (SchemaStoreException e) {
                reloadBeforeNextWrite = true;
                LOG.error("Store {} failed while {}", store.describe(), action, e);
                throw RegistryException.storeFailure(action, e);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Only ever called inside {@link #write}: durable first, then visible. */
    private void append(StoreRecord record) {
        store.append(record);
        state.apply(record);
    }

    @Override
    public void close() {
        store.close();
    }
}
