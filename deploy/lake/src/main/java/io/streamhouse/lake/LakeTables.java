package io.streamhouse.lake;

import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.domain.topic.Topic;
import org.apache.avro.specific.SpecificData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.types.TypeUtil;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Creates the lake's tables ahead of the sink, from the topics' Avro schemas ({@link LakeSchemas}), so that the sink
 * never auto-creates one with guessed types.
 *
 * <p>Idempotent: an existing table keeps its data and gains the columns a newer schema added (union by name; no
 * column is dropped or retyped). A catalog entry whose metadata file is gone (the warehouse was wiped, the catalog
 * database was not) is dropped and created anew rather than left failing every commit. Tables are Iceberg format
 * v2 and keep at most {@value #METADATA_VERSIONS_KEPT} previous metadata files: with a commit every second the
 * metadata would otherwise grow without bound.
 */
public final class LakeTables {

    static final int METADATA_VERSIONS_KEPT = 50;

    /** What {@link #ensure} did, per table. */
    public record Outcome(List<String> created, List<String> evolved, List<String> unchanged, List<String> recreated) {
        public int total() {
            return created.size() + evolved.size() + unchanged.size() + recreated.size();
        }
    }

    private LakeTables() {
    }

    /** The Avro schema of a topic's values, from its generated class. */
    public static org.apache.avro.Schema valueSchema(Topic<?, ?> topic) {
        return SpecificData.get().getSchema(topic.valueType());
    }

    /** Every landed topic's table in the catalog these Iceberg properties name, the catalog closed afterwards. */
    public static Outcome ensureLanded(Map<String, String> catalogProperties) throws Exception {
        Catalog catalog = org.apache.iceberg.CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, catalogProperties,
                new org.apache.hadoop.conf.Configuration());
        try {
            return ensure(catalog, LakeNames.landed());
        } finally {
            if (catalog instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    /** A properties file (the Iceberg catalog's) as a sorted map. */
    public static Map<String, String> readProperties(java.nio.file.Path file) throws java.io.IOException {
        java.util.Properties p = new java.util.Properties();
        try (java.io.Reader in = java.nio.file.Files.newBufferedReader(file)) {
            p.load(in);
        }
        Map<String, String> out = new java.util.TreeMap<>();
        p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k)));
        return out;
    }

    public static Outcome ensure(Catalog catalog, Collection<? extends Topic<?, ?>> topics) {
        Namespace namespace = Namespace.of(LakeNames.NAMESPACE);
        if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(namespace)) {
            try {
                namespaces.createNamespace(namespace, Map.of());
            } catch (AlreadyExistsException e) {
                // created concurrently: fine
            }
        }
        List<String> created = new ArrayList<>();
        List<String> evolved = new ArrayList<>();
        List<String> unchanged = new ArrayList<>();
        List<String> recreated = new ArrayList<>();
        for (Topic<?, ?> topic : topics) {
            TableIdentifier id = TableIdentifier.of(namespace, LakeNames.tableName(topic.name()));
            Schema schema = LakeSchemas.tableSchema(valueSchema(topic));
            PartitionSpec spec = LakeSchemas.daySpec(schema, LakeNames.eventTimeColumn(topic));
            switch (ensure(catalog, id, schema, spec)) {
                case CREATED -> created.add(id.toString());
                case EVOLVED -> evolved.add(id.toString());
                case UNCHANGED -> unchanged.add(id.toString());
                case RECREATED -> recreated.add(id.toString());
            }
        }
        return new Outcome(created, evolved, unchanged, recreated);
    }

    /** What happened to one table. */
    public enum Change { CREATED, EVOLVED, UNCHANGED, RECREATED }

    /** Creates {@code id} with {@code schema} and {@code spec}, or adds to it the columns {@code schema} has and it lacks. */
    public static Change ensure(Catalog catalog, TableIdentifier id, Schema schema, PartitionSpec spec) {
        if (!catalog.tableExists(id)) {
            create(catalog, id, schema, spec);
            return Change.CREATED;
        }
        Table table;
        try {
            table = catalog.loadTable(id);
        } catch (NotFoundException e) {
            catalog.dropTable(id, false);
            create(catalog, id, schema, spec);
            return Change.RECREATED;
        }
        if (TypeUtil.indexByName(table.schema().asStruct()).keySet()
                .containsAll(TypeUtil.indexByName(schema.asStruct()).keySet())) {
            return Change.UNCHANGED;
        }
        table.updateSchema().unionByNameWith(schema).commit();
        return Change.EVOLVED;
    }

    private static void create(Catalog catalog, TableIdentifier id, Schema schema, PartitionSpec spec) {
        try {
            catalog.buildTable(id, schema).withPartitionSpec(spec)
                    .withProperty(TableProperties.FORMAT_VERSION, "2")
                    .withProperty(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true")
                    .withProperty(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, Integer.toString(METADATA_VERSIONS_KEPT))
                    .create();
        } catch (AlreadyExistsException e) {
            // created concurrently: fine
        }
    }
}
