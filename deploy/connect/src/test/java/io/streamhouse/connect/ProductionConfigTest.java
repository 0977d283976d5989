package io.streamhouse.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The production files under deploy/connect/production say what the platform's worker and connector do. */
class ProductionConfigTest {

    /** Differ on purpose: where the database, registry and Kafka are, and how many replicas there are. */
    private static final Set<String> SITE_SPECIFIC = Set.of("database.hostname", "database.port", "database.user",
            "database.password", "database.dbname", "key.converter.schema.registry.url",
            "value.converter.schema.registry.url", "topic.creation.default.replication.factor");

    @Test
    void theConnectorJsonCarriesEveryGuaranteeOfTheLocalConnector() throws IOException {
        JsonNode json = new ObjectMapper().readTree(Path.of("production/shop-cdc-connector.json").toFile());
        assertThat(json.get("name").asText()).isEqualTo(CdcConnector.DEFAULT_NAME);
        Map<String, String> local = CdcConnector.config(new CdcConnector.Source(
                "jdbc:postgresql://127.0.0.1:5432/streamhouse", "postgres", "", null, null), "http://127.0.0.1:8085");
        JsonNode config = json.get("config");
        local.forEach((key, value) -> {
            assertThat(config.has(key)).as("production connector sets %s", key).isTrue();
            if (!SITE_SPECIFIC.contains(key)) {
                assertThat(config.get(key).asText()).as(key).isEqualTo(value);
            }
        });
    }

    @Test
    void theWorkerPropertiesKeepExactlyOnceAndTheConverter() throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("production/connect-distributed.properties"))) {
            p.load(in);
        }
        Map<String, String> local = WorkerConfig.of(ConnectOptions.of(Path.of("target"), "127.0.0.1:9092",
                "http://127.0.0.1:8085"), 8083);
        for (String key : new String[]{"exactly.once.source.support", "group.id", "config.storage.topic",
                "offset.storage.topic", "status.storage.topic", "key.converter", "value.converter", "plugin.discovery",
                "scheduled.rebalance.max.delay.ms", "connector.client.config.override.policy",
                "transaction.timeout.ms", "producer.transaction.timeout.ms", "offset.flush.interval.ms"}) {
            assertThat(p.getProperty(key)).as(key).isEqualTo(local.get(key));
        }
        // The worker and its connectors' clients log in as user connect; the password is a file reference, never a literal.
        for (String prefix : new String[]{"", "producer.", "consumer.", "admin."}) {
            assertThat(p.getProperty(prefix + "sasl.jaas.config")).as(prefix + "sasl.jaas.config")
                    .contains("username=\"connect\"").contains("password=\"${dir:");
        }
        assertThat(p.getProperty("config.providers.dir.class")).isEqualTo("org.apache.kafka.common.config.provider.DirectoryConfigProvider");
    }

    /** Differ on purpose in the lake's connector: where the catalog, warehouse, registry and Kafka are, and replicas. */
    private static final Set<String> LAKE_SITE_SPECIFIC = Set.of("value.converter.schema.registry.url",
            "iceberg.catalog.uri", "iceberg.catalog.jdbc.user", "iceberg.catalog.jdbc.password", "iceberg.catalog.warehouse",
            "iceberg.kafka.bootstrap.servers", "iceberg.control.topic", "errors.deadletterqueue.topic.replication.factor",
            // Production logs in over TLS (SASL_SSL); the local stack over loopback (SASL_PLAINTEXT, or PLAINTEXT in tests).
            "iceberg.kafka.security.protocol");

    @Test
    void theLakeConnectorJsonCarriesEveryGuaranteeOfTheLocalOne() throws IOException {
        JsonNode json = new ObjectMapper().readTree(Path.of("production/lake-connector.json").toFile());
        assertThat(json.get("name").asText()).isEqualTo(LakeConnector.NAME);
        Map<String, String> local = LakeConnector.config(LakeConnector.settings(Map.of(
                "catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog", "uri", "jdbc:postgresql://h/db", "jdbc.user", "u",
                "jdbc.password", "p", "jdbc.schema-version", "V1", "warehouse", "file:///lake"),
                "127.0.0.1:9092", "http://127.0.0.1:8085", "cluster"));
        JsonNode config = json.get("config");
        local.forEach((key, value) -> {
            assertThat(config.has(key)).as("production lake connector sets %s", key).isTrue();
            if (!LAKE_SITE_SPECIFIC.contains(key)) {
                assertThat(config.get(key).asText()).as(key).isEqualTo(value);
            }
        });
        assertThat(config.get("iceberg.catalog.io-impl").asText()).isEqualTo("org.apache.iceberg.aws.s3.S3FileIO");
    }
}
