package io.streamhouse.domain.wire;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.Schema;

/**
 * A registry in memory, for unit tests (TopologyTestDriver, serializer tests) that should not need a server.
 *
 * <p>It keeps the id semantics of a real registry, because tests that pass here must not fail against one: ids are
 * global and start at 1, the same schema under two subjects gets the same id, registering an identical schema again
 * returns the existing id, and a new version must be BACKWARD compatible with the subject's latest version (the
 * registry's default level), else registration fails with error 409 like a real registry would. Schemas are
 * "identical" when their Avro JSON renderings ({@link Schema#toString()}) are equal, which ignores whitespace but not
 * docs or defaults, as Confluent does. Thread-safe (every method is synchronized).
 */
public final class InMemorySchemaRegistryClient implements SchemaRegistryClient {

    private final Map<String, List<RegisteredSchema>> versionsBySubject = new HashMap<>();
    private final Map<String, Integer> idByCanonical = new HashMap<>();
    private final Map<Integer, Schema> schemaById = new HashMap<>();
    private int nextId = 1;

    @Override
    public synchronized int register(String subject, Schema schema) {
        Objects.requireNonNull(schema, "schema");
        String canonical = schema.toString();
        List<RegisteredSchema> versions = versionsBySubject.computeIfAbsent(requireSubject(subject),
                ignored -> new ArrayList<>());
        for (RegisteredSchema existing : versions) {
            if (existing.schema().toString().equals(canonical)) {
                return existing.id();
            }
        }
        if (!versions.isEmpty()) {
            RegisteredSchema latest = versions.get(versions.size() - 1);
            List<String> problems = backwardProblems(schema, latest.schema());
            if (!problems.isEmpty()) {
                throw new SchemaRegistryException("Schema being registered is incompatible with an earlier schema for"
                        + " subject '" + subject + "' (version " + latest.version() + ", level BACKWARD): "
                        + problems, 409, 409);
            }
        }
        int id = idByCanonical.computeIfAbsent(canonical, ignored -> nextId++);
        schemaById.putIfAbsent(id, schema);
        versions.add(new RegisteredSchema(subject, versions.size() + 1, id, schema));
        return id;
    }

    @Override
    public synchronized int getId(String subject, Schema schema) {
        Objects.requireNonNull(schema, "schema");
        List<RegisteredSchema> versions = existingVersions(subject);
        String canonical = schema.toString();
        return versions.stream()
                .filter(v -> v.schema().toString().equals(canonical))
                .findFirst()
                .map(RegisteredSchema::id)
                .orElseThrow(() -> new SchemaRegistryException("Schema not found under subject '" + subject + "'",
                        404, 40403));
    }

    @Override
    public synchronized Schema getById(int id) {
        Schema schema = schemaById.get(id);
        if (schema == null) {
            throw new SchemaRegistryException("Schema " + id + " not found", 404, 40403);
        }
        return schema;
    }

    @Override
    public synchronized RegisteredSchema getLatest(String subject) {
        List<RegisteredSchema> versions = existingVersions(subject);
        return versions.get(versions.size() - 1);
    }

    @Override
    public synchronized boolean testCompatibility(String subject, Schema schema) {
        List<RegisteredSchema> versions = versionsBySubject.getOrDefault(requireSubject(subject), List.of());
        return versions.isEmpty() || backwardProblems(schema, versions.get(versions.size() - 1).schema()).isEmpty();
    }

    /** Every subject registered so far, for assertions in tests. */
    public synchronized List<String> subjects() {
        return versionsBySubject.keySet().stream().sorted().toList();
    }

    /** Every version of a subject, oldest first, for assertions in tests. */
    public synchronized List<RegisteredSchema> versions(String subject) {
        return List.copyOf(versionsBySubject.getOrDefault(subject, List.of()));
    }

    @Override
    public void close() {
        // Nothing to release; the registry stays usable so that tests can share one across serdes.
    }

    private List<RegisteredSchema> existingVersions(String subject) {
        List<RegisteredSchema> versions = versionsBySubject.get(requireSubject(subject));
        if (versions == null || versions.isEmpty()) {
            throw new SchemaRegistryException("Subject '" + subject + "' not found.", 404, 40401);
        }
        return versions;
    }

    private static String requireSubject(String subject) {
        if (subject == null || subject.isEmpty()) {
            throw new IllegalArgumentException("subject must not be empty");
        }
        return subject;
    }

    /** BACKWARD: the new schema, as reader, must read data written with the previous one. */
    private static List<String> backwardProblems(Schema candidate, Schema previous) {
        return Incompatibilities.of(candidate, previous);
    }
}
