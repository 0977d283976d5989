package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.connect.LakePrepareMain;
import io.streamhouse.security.kafka.KafkaClientSettings;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lake's preparation Job against the code and the lake connector it prepares for: its arguments parse with
 * {@link LakePrepareMain#parse}, its catalog is the connector's {@code iceberg.catalog.*} (the password from the same
 * Secret, in the variable the main reads), its control topic and Kafka the connector's, its login {@code connect}'s
 * password file, its S3 credentials the workers', and it runs before the connector (file order).
 */
class LakePrepareManifestTest {
    private static final Path SOURCES = Path.of("../connect/src/main/java/io/streamhouse/connect/LakePrepareMain.java");

    static Manifests.Doc job() {
        return Manifests.one("Job", "streamhouse-lake-prepare");
    }

    static JsonNode container() {
        return job().container();
    }

    static JsonNode connectorConfig() {
        return Manifests.one("KafkaConnector", LakeConnector.NAME).node().path("spec").path("config");
    }

    static Map<String, JsonNode> env(JsonNode list) {
        Map<String, JsonNode> env = new TreeMap<>();
        list.forEach(e -> env.put(e.path("name").asText(), e));
        return env;
    }

    static String mountPath(String volume) {
        for (JsonNode m : container().path("volumeMounts")) {
            if (m.path("name").asText().equals(volume)) {
                return m.path("mountPath").asText();
            }
        }
        return null;
    }

    static LakePrepareMain.Arguments arguments() {
        List<String> args = new ArrayList<>();
        container().path("args").forEach(a -> args.add(a.asText()));
        return LakePrepareMain.parse(args.toArray(String[]::new));
    }

    @Test
    void itRunsTheMainWithArgumentsItAcceptsForTheConnectorsControlTopicAndKafka() {
        LakePrepareMain.Arguments a = arguments();
        assertThat(container().path("command").toString()).contains(LakePrepareMain.class.getName());
        assertThat(a.controlTopic()).as("the lake connector's iceberg.control.topic")
                .isEqualTo(connectorConfig().path("iceberg.control.topic").asText())
                .isEqualTo(LakeConnector.controlTopicOf(ManifestGenerator.CLUSTER));
        assertThat(a.bootstrap()).isEqualTo(connectorConfig().path("iceberg.kafka.bootstrap.servers").asText());
        assertThat(ManifestGenerator.lakeTopics()).as("its topics are KafkaTopics").anySatisfy(t -> assertThat(t.name()).isEqualTo(a.controlTopic()));
    }

    @Test
    void itsCatalogIsTheConnectorsWithThePasswordFromTheSameSecret() throws IOException {
        LakePrepareMain.Arguments a = arguments();
        String mount = mountPath("catalog");
        assertThat(a.catalog().getParent()).as("the catalog file is on the ConfigMap's volume").isEqualTo(Path.of(mount));
        Manifests.Doc configMap = Manifests.one("ConfigMap", "streamhouse-lake-catalog");
        String name = null;
        for (JsonNode v : job().node().path("spec").path("template").path("spec").path("volumes")) {
            if (v.path("name").asText().equals("catalog")) {
                name = v.path("configMap").path("name").asText();
            }
        }
        assertThat(name).isEqualTo(configMap.name());
        Properties file = new Properties();
        file.load(new StringReader(configMap.node().path("data").path(a.catalog().getFileName().toString()).asText()));
        Map<String, String> fromFile = new TreeMap<>();
        file.stringPropertyNames().forEach(k -> fromFile.put(k, file.getProperty(k)));

        Map<String, String> connector = new TreeMap<>();
        connectorConfig().fields().forEachRemaining(e -> {
            if (e.getKey().startsWith("iceberg.catalog.")) {
                connector.put(e.getKey().substring("iceberg.catalog.".length()), e.getValue().asText());
            }
        });
        String password = connector.remove("jdbc.password");
        assertThat(fromFile).as(configMap.where() + ": the lake connector's iceberg.catalog.* without the password").isEqualTo(connector);

        JsonNode fromEnv = env(container().path("env")).get(LakePrepareMain.PASSWORD_ENV);
        assertThat(fromEnv).as("the password in " + LakePrepareMain.PASSWORD_ENV).isNotNull();
        assertThat(password).isEqualTo("${strimzienv:" + LakePrepareMain.PASSWORD_ENV + "}");
        JsonNode worker = env(Manifests.one("KafkaConnect", "streamhouse-connect").node().path("spec").path("template")
                .path("connectContainer").path("env")).get(LakePrepareMain.PASSWORD_ENV);
        assertThat(fromEnv.path("valueFrom")).as("the same Secret as the Connect workers'").isEqualTo(worker.path("valueFrom"));
    }

    @Test
    void itLogsInAsConnectWithItsPasswordFileAndReachesS3AsTheWorkersDo() throws IOException {
        assertThat(java.util.regex.Pattern.compile("KafkaPrincipal\\.([A-Z_]+)").matcher(java.nio.file.Files.readString(SOURCES))
                .results().map(m -> m.group(1)).distinct().toList()).as("the users LakePrepareMain logs in as").containsExactly("CONNECT");
        Set<String> files = new TreeSet<>();
        for (JsonNode v : job().node().path("spec").path("template").path("spec").path("volumes")) {
            if (v.path("name").asText().equals("kafka-credentials")) {
                v.path("projected").path("sources").forEach(s -> files.add(s.path("secret").path("items").get(0).path("path").asText()));
            }
        }
        assertThat(files).containsExactly("connect.password");
        Map<String, JsonNode> env = env(container().path("env"));
        assertThat(env.get(KafkaClientSettings.CREDENTIALS_DIR_ENV).path("value").asText()).isEqualTo(mountPath("kafka-credentials"));
        assertThat(env.get(KafkaClientSettings.SECURITY_PROTOCOL_ENV).path("value").asText()).isEqualTo("SASL_PLAINTEXT");
        Map<String, JsonNode> worker = env(Manifests.one("KafkaConnect", "streamhouse-connect").node().path("spec").path("template")
                .path("connectContainer").path("env"));
        for (String aws : List.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION")) {
            assertThat(env.get(aws)).as(aws).isNotNull();
            assertThat(env.get(aws).path("valueFrom")).as(aws + " from the workers' Secret").isEqualTo(worker.get(aws).path("valueFrom"));
        }
    }

    @Test
    void itIsAppliedBeforeTheConnectorAndRetried() {
        Manifests.Doc connector = Manifests.one("KafkaConnector", LakeConnector.NAME);
        assertThat(job().file()).as("file order is apply order").isLessThan(connector.file());
        assertThat(job().node().path("spec").path("backoffLimit").asInt()).isGreaterThan(0);
    }
}
