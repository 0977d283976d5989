package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.connect.CdcConnector;
import io.streamhouse.connect.ConnectOptions;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.connect.WorkerConfig;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The KafkaConnect and KafkaConnector resources against deploy/connect: the worker's guarantees (WorkerConfig), each
 * connector's configuration as CdcConnector.config and LakeConnector.config build it (every key, and every value that
 * is not where-the-site-is), the plugins at the versions the root pom pins.
 */
class ConnectManifestsTest {
    static final String CONNECT = "streamhouse-connect";
    static final String CREDENTIALS = "/mnt/kafka-credentials";

    /** Differ on purpose in the CDC connector: where the shop database and the registry are, and replicas. */
    static final Set<String> CDC_SITE = Set.of("database.hostname", "database.port", "database.user", "database.password",
            "database.dbname", "key.converter.schema.registry.url", "value.converter.schema.registry.url",
            "topic.creation.default.replication.factor");
    /** Differ on purpose in the lake's connector: where catalog, warehouse, registry and Kafka are, and replicas. */
    static final Set<String> LAKE_SITE = Set.of("value.converter.schema.registry.url", "iceberg.catalog.uri",
            "iceberg.catalog.jdbc.user", "iceberg.catalog.jdbc.password", "iceberg.catalog.warehouse",
            "iceberg.kafka.bootstrap.servers", "errors.deadletterqueue.topic.replication.factor");
    /** Keys the YAML adds to the code's: S3 (the code's local lake is on files). */
    static final Set<String> LAKE_S3 = Set.of("iceberg.catalog.io-impl", "iceberg.catalog.s3.endpoint",
            "iceberg.catalog.s3.path-style-access");

    @Test
    void theCdcConnectorIsCdcConnectorConfig() {
        Map<String, String> code = CdcConnector.config(new CdcConnector.Source("jdbc:postgresql://h:5432/shop", "u", "p",
                null, null), "http://r:8081");
        assertThat(differences(Manifests.one("KafkaConnector", CdcConnector.DEFAULT_NAME), code, CDC_SITE, Set.of())).isEmpty();
    }

    @Test
    void theLakeConnectorIsLakeConnectorConfigOnS3WithTheJdbcCatalog(@TempDir Path dir) throws IOException {
        Map<String, String> code = lakeConfig(dir);
        Manifests.Doc lake = Manifests.one("KafkaConnector", LakeConnector.NAME);
        assertThat(differences(lake, code, LAKE_SITE, LAKE_S3)).isEmpty();
        JsonNode config = lake.node().path("spec").path("config");
        assertThat(config.path("iceberg.catalog.catalog-impl").asText()).isEqualTo("org.apache.iceberg.jdbc.JdbcCatalog");
        assertThat(config.path("iceberg.catalog.io-impl").asText()).isEqualTo("org.apache.iceberg.aws.s3.S3FileIO");
        assertThat(config.path("iceberg.catalog.warehouse").asText()).startsWith("s3://");
        assertThat(config.path("iceberg.catalog.uri").asText()).startsWith("jdbc:postgresql://");
        // The control topic carries the cluster's name (LakeConnector: a control topic per cluster).
        assertThat(config.path("iceberg.control.topic").asText()).isEqualTo(LakeConnector.controlTopicOf(ManifestGenerator.CLUSTER));
    }

    @Test
    void aConnectorKeyTheCodeDoesNotSetOrAChangedGuaranteeIsNamed(@TempDir Path dir) throws IOException {
        Map<String, String> code = lakeConfig(dir);
        Manifests.Doc lake = Manifests.one("KafkaConnector", LakeConnector.NAME);
        com.fasterxml.jackson.databind.node.ObjectNode node = lake.node().deepCopy();
        com.fasterxml.jackson.databind.node.ObjectNode config = (com.fasterxml.jackson.databind.node.ObjectNode) node.path("spec").path("config");
        config.put("consumer.override.isolation.level", "read_uncommitted");
        config.remove("iceberg.tables.route-field");
        config.put("iceberg.tables.upsert-mode-enabled", "true");
        assertThat(differences(new Manifests.Doc(lake.file(), lake.index(), node), code, LAKE_SITE, LAKE_S3)).containsExactlyInAnyOrder(
                "33-connector-lake.yaml: KafkaConnector lake: spec.config.consumer.override.isolation.level is read_uncommitted, the code has read_committed",
                "33-connector-lake.yaml: KafkaConnector lake: spec.config.iceberg.tables.route-field is missing, the code sets _topic",
                "33-connector-lake.yaml: KafkaConnector lake: spec.config.iceberg.tables.upsert-mode-enabled is not set by the code");
    }

    @Test
    void theWorkerKeepsWorkerConfigsGuaranteesWithThreeReplicas() {
        JsonNode spec = Manifests.one("KafkaConnect", CONNECT).node().path("spec");
        ConnectOptions options = ConnectOptions.of(Path.of("target"), "b:9092", "http://r:8081");
        Map<String, String> worker = WorkerConfig.of(options, 8083);
        assertThat(spec.path("groupId").asText()).isEqualTo(worker.get("group.id")).isEqualTo(ConnectOptions.DEFAULT_GROUP_ID);
        assertThat(spec.path("configStorageTopic").asText()).isEqualTo(options.configTopic());
        assertThat(spec.path("offsetStorageTopic").asText()).isEqualTo(options.offsetTopic());
        assertThat(spec.path("statusStorageTopic").asText()).isEqualTo(options.statusTopic());
        assertThat(spec.path("replicas").asInt()).as("two workers in one group").isEqualTo(2);
        assertThat(spec.path("authentication").path("username").asText()).isEqualTo(KafkaPrincipal.CONNECT.userName());
        assertThat(spec.path("authentication").path("passwordSecret").path("secretName").asText()).isEqualTo(KafkaPrincipal.CONNECT.userName());
        JsonNode config = spec.path("config");
        List<String> wrong = new ArrayList<>();
        for (String key : List.of("exactly.once.source.support", "key.converter", "value.converter", "topic.creation.enable",
                "connector.client.config.override.policy", "scheduled.rebalance.max.delay.ms", "offset.flush.interval.ms",
                "transaction.timeout.ms", "producer.transaction.timeout.ms", "task.shutdown.graceful.timeout.ms",
                "config.providers.dir.class")) {
            String expected = key.startsWith("config.providers") ? "org.apache.kafka.common.config.provider.DirectoryConfigProvider" : worker.get(key);
            if (!config.path(key).asText().equals(expected)) {
                wrong.add("spec.config." + key + " is " + config.path(key) + ", WorkerConfig has " + expected);
            }
        }
        for (String key : List.of("config.storage.replication.factor", "offset.storage.replication.factor", "status.storage.replication.factor")) {
            if (config.path(key).asInt() != ManifestGenerator.REPLICAS) {
                wrong.add("spec.config." + key + " is " + config.path(key) + ", not " + ManifestGenerator.REPLICAS);
            }
        }
        // Keys Strimzi sets itself and refuses in spec.config (KafkaConnectSpec.FORBIDDEN_PREFIXES).
        config.fieldNames().forEachRemaining(key -> {
            for (String forbidden : List.of("group.id", "config.storage.topic", "offset.storage.topic", "status.storage.topic",
                    "ssl.", "sasl.", "security.", "listeners", "plugin.path", "rest.", "bootstrap.servers")) {
                if (key.startsWith(forbidden)) {
                    wrong.add("spec.config." + key + " is Strimzi's to set");
                }
            }
        });
        assertThat(wrong).isEmpty();
        assertThat(config.path("config.providers.dir.param.allowed.paths").asText()).isEqualTo(CREDENTIALS);
    }

    @Test
    void thePluginsAreTheArtifactsAndVersionsTheRootPomPins() throws IOException {
        Map<String, String> wanted = new LinkedHashMap<>();
        wanted.put("io.debezium:debezium-connector-postgres", Pinned.version("debezium.version"));
        wanted.put("org.apache.iceberg:iceberg-kafka-connect", Pinned.version("iceberg.version"));
        wanted.put("org.apache.iceberg:iceberg-parquet", Pinned.version("iceberg.version"));
        wanted.put("org.apache.iceberg:iceberg-aws", Pinned.version("iceberg.version"));
        wanted.put("org.apache.iceberg:iceberg-aws-bundle", Pinned.version("iceberg.version"));
        wanted.put("org.apache.hadoop:hadoop-client-api", Pinned.version("hadoop.version"));
        wanted.put("org.apache.hadoop:hadoop-client-runtime", Pinned.version("hadoop.version"));
        wanted.put("org.postgresql:postgresql", postgresqlVersion());
        wanted.put("io.streamhouse:streamhouse-connect", Pinned.version("project.version"));
        Map<String, String> found = new HashMap<>();
        for (JsonNode plugin : Manifests.one("KafkaConnect", CONNECT).node().path("spec").path("build").path("plugins")) {
            for (JsonNode a : plugin.path("artifacts")) {
                assertThat(a.path("type").asText()).as(plugin.path("name") + " artifact type").isEqualTo("maven");
                found.put(a.path("group").asText() + ":" + a.path("artifact").asText(), a.path("version").asText());
            }
        }
        assertThat(found).isEqualTo(wanted);
    }

    @Test
    void theConnectorsRunOnTheWorkerAndTheSinksPasswordIsTheMountedFile() {
        for (Manifests.Doc c : Manifests.ofKind("KafkaConnector")) {
            assertThat(c.node().path("metadata").path("labels").path("strimzi.io/cluster").asText()).as(c.where()).isEqualTo(CONNECT);
        }
        JsonNode pod = Manifests.one("KafkaConnect", CONNECT).node().path("spec").path("template");
        JsonNode volume = pod.path("pod").path("volumes").get(0);
        assertThat(volume.path("secret").path("secretName").asText()).isEqualTo(KafkaPrincipal.CONNECT.userName());
        assertThat(volume.path("secret").path("items").get(0).path("path").asText()).isEqualTo(KafkaPrincipal.CONNECT.userName() + ".password");
        assertThat(pod.path("connectContainer").path("volumeMounts").get(0).path("mountPath").asText()).isEqualTo(CREDENTIALS);
        // Every ${strimzienv:NAME} a connector reads is set on the worker.
        List<String> env = new ArrayList<>();
        pod.path("connectContainer").path("env").forEach(e -> env.add(e.path("name").asText()));
        for (Manifests.Doc c : Manifests.ofKind("KafkaConnector")) {
            c.node().path("spec").path("config").fields().forEachRemaining(e -> {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\$\\{strimzienv:([A-Z_]+)}").matcher(e.getValue().asText());
                while (m.find()) {
                    assertThat(env).as(c.where() + " spec.config." + e.getKey()).contains(m.group(1));
                }
            });
        }
    }

    /**
     * The code's configuration with the worker's credentials directory at {@link #CREDENTIALS}: KafkaClientSettings reads
     * the password file to check it, so a file stands in at a temporary path, which is then named as on the pod.
     */
    static Map<String, String> lakeConfig(Path dir) throws IOException {
        Files.writeString(dir.resolve("connect.password"), "0123abcd");
        Map<String, String> env = Map.of(KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT",
                KafkaClientSettings.SASL_MECHANISM_ENV, "SCRAM-SHA-512", KafkaClientSettings.CREDENTIALS_DIR_ENV, dir.toString());
        Map<String, String> saved = new HashMap<>();
        env.forEach((k, v) -> {
            String property = "streamhouse.kafka." + k.substring("STREAMHOUSE_KAFKA_".length()).toLowerCase().replace('_', '.');
            saved.put(property, System.getProperty(property));
            System.setProperty(property, v);
        });
        try {
            Map<String, String> config = LakeConnector.config(LakeConnector.settings(Map.of(
                    "catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog", "uri", "jdbc:postgresql://h/db", "jdbc.user", "u",
                    "jdbc.password", "p", "jdbc.schema-version", "V1", "warehouse", "s3://w"),
                    "b:9092", "http://r:8081", ManifestGenerator.CLUSTER));
            Map<String, String> onPod = new LinkedHashMap<>();
            config.forEach((k, v) -> onPod.put(k, v.replace(dir.toAbsolutePath().normalize().toString(), CREDENTIALS)));
            return onPod;
        } finally {
            saved.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    /** Each key of the code's config that the YAML lacks or sets otherwise, and each key the YAML adds. */
    static List<String> differences(Manifests.Doc connector, Map<String, String> code, Set<String> site, Set<String> added) {
        List<String> out = new ArrayList<>();
        JsonNode spec = connector.node().path("spec");
        JsonNode config = spec.path("config");
        String where = connector.where() + ": ";
        if (!spec.path("class").asText().equals(code.get("connector.class"))) {
            out.add(where + "spec.class is " + spec.path("class") + ", the code has " + code.get("connector.class"));
        }
        if (!spec.path("tasksMax").asText().equals(code.get("tasks.max"))) {
            out.add(where + "spec.tasksMax is " + spec.path("tasksMax") + ", the code has " + code.get("tasks.max"));
        }
        code.forEach((key, value) -> {
            if (key.equals("connector.class") || key.equals("tasks.max")) {
                if (config.has(key)) {
                    out.add(where + "spec.config." + key + " belongs in spec (Strimzi)");
                }
            } else if (!config.has(key)) {
                out.add(where + "spec.config." + key + " is missing, the code sets " + value);
            } else if (!site.contains(key) && !config.get(key).asText().equals(value)) {
                out.add(where + "spec.config." + key + " is " + config.get(key).asText() + ", the code has " + value);
            }
        });
        config.fieldNames().forEachRemaining(key -> {
            if (!code.containsKey(key) && !added.contains(key)) {
                out.add(where + "spec.config." + key + " is not set by the code");
            }
        });
        return out;
    }

    private static String postgresqlVersion() throws IOException {
        java.util.Properties p = new java.util.Properties();
        try (var in = org.postgresql.Driver.class.getResourceAsStream("/META-INF/maven/org.postgresql/postgresql/pom.properties")) {
            if (in == null) {
                return org.postgresql.Driver.class.getPackage().getImplementationVersion();
            }
            p.load(in);
        }
        return p.getProperty("version");
    }
}
