package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.registry.RegistryConfig;
import io.streamhouse.registry.SchemaRegistryServer;
import io.streamhouse.security.kafka.KafkaClientSettings;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schema registry's Deployment against the registry's own code: the configuration its environment gives
 * {@link SchemaRegistryServer#configFrom} (so every value parses, and the port, topic and replication are the ones
 * the rest of the manifests and the ACLs expect), only variables it reads, its Kafka login, one writer, and every
 * registry URL of every other manifest pointing at its Service.
 */
class RegistryManifestTest {
    private static final Path SOURCES = Path.of("../schema-registry/src/main/java");

    static Manifests.Doc deployment() {
        return Manifests.one("Deployment", "schema-registry");
    }

    static JsonNode container() {
        return deployment().container();
    }

    static Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        container().path("env").forEach(e -> env.put(e.path("name").asText(), e.path("value").asText(null)));
        return env;
    }

    @Test
    void itsEnvironmentIsAConfigurationTheRegistryAcceptsOnTheServicesPortForTheTopicItsUserMayWrite() {
        Map<String, String> env = env();
        RegistryConfig config = SchemaRegistryServer.configFrom(new String[0], env::get);
        Manifests.Doc service = Manifests.one("Service", "schema-registry");
        JsonNode port = service.node().path("spec").path("ports").get(0);
        JsonNode containerPort = container().path("ports").get(0);

        assertThat(config.host()).as("binds every address").isEqualTo("0.0.0.0");
        assertThat(config.port()).as(deployment().where() + ": the registry's port is the container port")
                .isEqualTo(containerPort.path("containerPort").asInt()).isEqualTo(port.path("port").asInt());
        assertThat(port.path("targetPort").asText()).isEqualTo(containerPort.path("name").asText());
        assertThat(config.topic()).as("the topic the registry user's ACLs name").isEqualTo(RegistryConfig.DEFAULT_TOPIC);
        assertThat((int) config.replicationFactor()).isEqualTo(ManifestGenerator.REPLICAS);
        assertThat(config.bootstrapServers()).isEqualTo("streamhouse-kafka-bootstrap:9092");
        assertThat(container().path("command").toString()).as("the image runs the registry's main")
                .contains(SchemaRegistryServer.class.getName());
    }

    @Test
    void everyVariableIsOneTheRegistryReads() {
        Set<String> known = new TreeSet<>(SchemaRegistryServer.ENVIRONMENT);
        known.addAll(List.of(KafkaClientSettings.SECURITY_PROTOCOL_ENV, KafkaClientSettings.SASL_MECHANISM_ENV,
                KafkaClientSettings.CREDENTIALS_DIR_ENV));
        assertThat(env().keySet()).as(deployment().where() + ": variables the registry does not read")
                .allSatisfy(name -> assertThat(known).contains(name));
        assertThat(env()).containsEntry(KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT");
    }

    @Test
    void itLogsInWithThePasswordFileOfEveryKafkaUserItsCodeNames() throws IOException {
        Set<String> used = AppManifestsTest.principalsIn(SOURCES);
        Set<String> files = new TreeSet<>();
        String dir = null;
        for (JsonNode v : deployment().node().path("spec").path("template").path("spec").path("volumes")) {
            if (v.path("name").asText().equals("kafka-credentials")) {
                v.path("projected").path("sources").forEach(s -> files.add(s.path("secret").path("items").get(0).path("path").asText()));
            }
        }
        for (JsonNode m : container().path("volumeMounts")) {
            if (m.path("name").asText().equals("kafka-credentials")) {
                dir = m.path("mountPath").asText();
            }
        }
        assertThat(used).containsExactly("registry");
        assertThat(files).isEqualTo(used.stream().map(u -> u + ".password").collect(Collectors.toCollection(TreeSet::new)));
        assertThat(env().get(KafkaClientSettings.CREDENTIALS_DIR_ENV)).isEqualTo(dir);
    }

    @Test
    void oneWriterAtATime() {
        JsonNode spec = deployment().node().path("spec");
        assertThat(spec.path("replicas").asInt()).as("the registry is its topic's only writer").isEqualTo(1);
        assertThat(spec.path("strategy").path("type").asText()).as("an upgrade stops the old pod first").isEqualTo("Recreate");
    }

    @Test
    void everyRegistryUrlInTheManifestsIsThisService() {
        Manifests.Doc service = Manifests.one("Service", "schema-registry");
        String url = "http://" + service.name() + ":" + service.node().path("spec").path("ports").get(0).path("port").asText();
        List<String> found = new ArrayList<>();
        for (Manifests.Doc doc : Manifests.all()) {
            registryUrls(doc.node(), doc.where(), found);
        }
        assertThat(found).as("registry URLs: the Connect worker's two converters, each connector's, the CEP job's, the api's "
                + "and ingest's").hasSizeGreaterThanOrEqualTo(8);
        assertThat(found).allSatisfy(f -> assertThat(f).endsWith(" = " + url));
    }

    /** Every {@code *schema.registry.url} key, {@code *_SCHEMA_REGISTRY_URL} variable and {@code --registry} argument. */
    static void registryUrls(JsonNode node, String where, List<String> out) {
        if (node.isObject()) {
            if (node.path("name").asText().endsWith("SCHEMA_REGISTRY_URL") && node.has("value")) {
                out.add(where + ": env " + node.path("name").asText() + " = " + node.path("value").asText());
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                var e = it.next();
                if (e.getKey().endsWith("schema.registry.url")) {
                    out.add(where + ": " + e.getKey() + " = " + e.getValue().asText());
                } else {
                    registryUrls(e.getValue(), where, out);
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                if (node.get(i).asText().equals("--registry") && i + 1 < node.size()) {
                    out.add(where + ": --registry = " + node.get(i + 1).asText());
                }
                registryUrls(node.get(i), where, out);
            }
        }
    }
}
