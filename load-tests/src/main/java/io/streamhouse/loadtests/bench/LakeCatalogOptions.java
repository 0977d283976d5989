package io.streamhouse.loadtests.bench;

import io.streamhouse.domain.topic.LakeNames;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import picocli.CommandLine.Option;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of a lake benchmark against a running stack (a picocli mixin): where Kafka, the schema registry and
 * the lake's Iceberg catalog are. Loopback only: a benchmark never writes load to another machine.
 */
final class LakeCatalogOptions {

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap, loopback only (default ${DEFAULT-VALUE}).")
    String bootstrap;
    @Option(names = "--registry", defaultValue = "http://127.0.0.1:8085", description = "Schema registry, loopback only (default ${DEFAULT-VALUE}).")
    String registry;
    @Option(names = "--catalog-uri", required = true, description = "JDBC URL of the lake's catalog (the platform's PostgreSQL, printed by up).")
    String catalogUri;
    @Option(names = "--catalog-user", defaultValue = "postgres", description = "Catalog database user (default ${DEFAULT-VALUE}).")
    String catalogUser;
    @Option(names = "--catalog-password", defaultValue = "", description = "Catalog database password (default empty).")
    String catalogPassword;
    @Option(names = "--warehouse", defaultValue = "file://${sys:user.dir}/.streamhouse/lake", description = "Warehouse (default ${DEFAULT-VALUE}).")
    String warehouse;

    /** The first endpoint that is not on this machine, or null when all are. */
    String notLoopback() {
        for (String endpoint : List.of(bootstrap, registry, catalogUri)) {
            if (!endpoint.contains("127.0.0.1") && !endpoint.contains("localhost")) {
                return endpoint;
            }
        }
        return null;
    }

    /** The lake's catalog: Iceberg's {@code JdbcCatalog} (schema version V1), as the platform configures it. */
    Catalog catalog() {
        Map<String, String> props = new HashMap<>();
        props.put("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
        props.put("uri", catalogUri);
        props.put("jdbc.user", catalogUser);
        props.put("jdbc.password", catalogPassword);
        props.put("jdbc.schema-version", "V1");
        props.put("warehouse", warehouse);
        return CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, props, new org.apache.hadoop.conf.Configuration());
    }
}
