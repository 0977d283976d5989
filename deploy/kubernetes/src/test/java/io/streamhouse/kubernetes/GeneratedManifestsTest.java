package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed KafkaTopic and KafkaUser files are what {@link ManifestGenerator} builds from the code: a manifest
 * that drifts from the catalog or from KafkaAcls fails here, naming the resource and the field.
 */
class GeneratedManifestsTest {
    static final String REGENERATE = "regenerate: docs/kubernetes.md, \"The generator\"";

    @Test
    void theCommittedTopicsAndUsersAreWhatTheCodeGenerates() {
        List<String> drift = new ArrayList<>();
        for (String file : ManifestGenerator.files().keySet()) {
            drift.addAll(drift(file, ManifestGenerator.resources(file), Manifests.read(Manifests.DIR.resolve(file))));
        }
        assertThat(drift).as("manifests that differ from the code (" + REGENERATE + ")").isEmpty();
    }

    @Test
    void theCommittedFilesAreTheGeneratorsTextToo() throws IOException {
        List<String> differ = new ArrayList<>();
        for (Map.Entry<String, String> file : ManifestGenerator.files().entrySet()) {
            String[] committed = Files.readString(Manifests.DIR.resolve(file.getKey())).split("\n", -1);
            String[] generated = file.getValue().split("\n", -1);
            for (int i = 0; i < Math.max(committed.length, generated.length); i++) {
                String c = i < committed.length ? committed[i] : "(end of file)";
                String g = i < generated.length ? generated[i] : "(end of file)";
                if (!c.equals(g)) {
                    differ.add(file.getKey() + " line " + (i + 1) + ": the generator writes '" + g + "', the file has '" + c + "'");
                    break;
                }
            }
        }
        assertThat(differ).as("generated files edited by hand (" + REGENERATE + ")").isEmpty();
    }

    private static List<Manifests.Doc> asDocs(String file, List<ObjectNode> nodes) {
        List<Manifests.Doc> docs = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            docs.add(new Manifests.Doc(file, i, nodes.get(i)));
        }
        return docs;
    }

    @Test
    void aDriftNamesTheResourceAndTheField() {
        List<Manifests.Doc> mutated = new ArrayList<>();
        for (Manifests.Doc d : asDocs(ManifestGenerator.TOPICS_FILE, ManifestGenerator.topics())) {
            ObjectNode copy = d.node().deepCopy();
            if (d.name().equals("shop.orders")) {
                ((ObjectNode) copy.path("spec")).put("partitions", 3);
            }
            if (!d.name().equals("audit.events")) {
                mutated.add(new Manifests.Doc(d.file(), d.index(), copy));
            }
        }
        List<String> drift = drift(ManifestGenerator.TOPICS_FILE, ManifestGenerator.topics(), mutated);
        assertThat(drift).containsExactlyInAnyOrder(
                "20-kafka-topics.yaml: KafkaTopic shop.orders: spec.partitions: the code has 6, the YAML has 3",
                "20-kafka-topics.yaml: KafkaTopic audit.events: the code has it, the YAML has not");

        List<Manifests.Doc> userMutated = new ArrayList<>();
        for (Manifests.Doc d : asDocs(ManifestGenerator.USERS_FILE, ManifestGenerator.users())) {
            ObjectNode copy = d.node().deepCopy();
            if (d.name().equals("cep")) {
                ((ObjectNode) copy.path("spec").path("authorization").path("acls").get(0).path("resource")).put("name", "alerts.frauds");
            }
            userMutated.add(new Manifests.Doc(d.file(), d.index(), copy));
        }
        assertThat(drift(ManifestGenerator.USERS_FILE, ManifestGenerator.users(), userMutated))
                .singleElement().asString()
                .startsWith("21-kafka-users.yaml: KafkaUser cep: spec.authorization.acls[0].resource.name: the code has");
    }

    /** Each difference as {@code <file>: <Kind> <name>: <path>: the code has …, the YAML has …}. */
    static List<String> drift(String file, List<ObjectNode> generated, List<Manifests.Doc> committed) {
        Map<String, JsonNode> code = byKindAndName(generated);
        Map<String, JsonNode> yaml = new LinkedHashMap<>();
        committed.forEach(d -> yaml.put(d.kind() + " " + d.name(), d.node()));
        List<String> out = new ArrayList<>();
        code.forEach((key, node) -> {
            if (!yaml.containsKey(key)) {
                out.add(file + ": " + key + ": the code has it, the YAML has not");
            } else {
                TreeDiff.between(node, yaml.get(key)).forEach(d -> out.add(file + ": " + key + ": " + d));
            }
        });
        yaml.keySet().stream().filter(k -> !code.containsKey(k))
                .forEach(k -> out.add(file + ": " + k + ": the YAML has it, the code has not"));
        return out;
    }

    private static Map<String, JsonNode> byKindAndName(List<ObjectNode> nodes) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        nodes.forEach(n -> m.put(n.path("kind").asText() + " " + n.path("metadata").path("name").asText(), n));
        return m;
    }
}
