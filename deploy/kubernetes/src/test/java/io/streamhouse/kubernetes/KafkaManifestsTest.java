package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.platform.KafkaAcls;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The Kafka cluster, its topics and its users against the code: the catalog, KafkaAcls, the pinned Kafka version. */
class KafkaManifestsTest {

    @Test
    void everyUsersAclsAreExactlyItsRowsOfKafkaAcls() {
        List<String> wrong = new ArrayList<>();
        for (Manifests.Doc user : Manifests.ofKind("KafkaUser")) {
            KafkaPrincipal principal = Arrays.stream(KafkaPrincipal.values()).filter(p -> p.userName().equals(user.name()))
                    .findFirst().orElse(null);
            if (principal == null) {
                wrong.add(user.where() + ": no KafkaPrincipal has this user name");
                continue;
            }
            Set<AclBinding> yaml = bindings(user);
            Set<AclBinding> code = new LinkedHashSet<>(KafkaAcls.of(principal));
            code.stream().filter(b -> !yaml.contains(b)).forEach(b -> wrong.add(user.where() + ": KafkaAcls grants " + b + ", the YAML does not"));
            yaml.stream().filter(b -> !code.contains(b)).forEach(b -> wrong.add(user.where() + ": the YAML grants " + b + ", KafkaAcls does not"));
            if (!user.node().path("spec").path("authentication").path("type").asText().equals("scram-sha-512")) {
                wrong.add(user.where() + ": spec.authentication.type is not scram-sha-512");
            }
        }
        assertThat(wrong).as("KafkaUser ACLs that differ from KafkaAcls").isEmpty();
    }

    @Test
    void everyPrincipalBelowTheSuperUsersHasAUser() {
        Set<String> users = Manifests.ofKind("KafkaUser").stream().map(Manifests.Doc::name).collect(Collectors.toSet());
        Set<String> expected = Arrays.stream(KafkaPrincipal.values()).filter(p -> !KafkaAcls.of(p).isEmpty())
                .map(KafkaPrincipal::userName).collect(Collectors.toSet());
        assertThat(users).isEqualTo(expected);
        assertThat(users).doesNotContain(KafkaPrincipal.BROKER.userName(), KafkaPrincipal.PLATFORM.userName());
    }

    @Test
    void theTopicsAreTheCatalogsAndTheLakesWithTheirPartitionsAndConfigs() {
        // What the platform creates: the catalog's topics, and the lake's control and dead-letter topics.
        record Expected(int partitions, Map<String, String> configs, String from) {
        }
        Map<String, Expected> expected = new LinkedHashMap<>();
        Topics.allWithDeadLetters().forEach(t -> expected.put(t.name(), new Expected(t.partitions(), t.configs(), "the catalog")));
        ManifestGenerator.lakeTopics().forEach(t -> expected.put(t.name(), new Expected(t.numPartitions(), t.configs(), "LakePreparation")));
        assertThat(expected).containsKey(LakeConnector.controlTopicOf(ManifestGenerator.CLUSTER)).containsKey(LakeConnector.DEAD_LETTER_TOPIC);
        List<String> wrong = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Manifests.Doc t : Manifests.ofKind("KafkaTopic")) {
            String name = t.node().path("spec").path("topicName").asText(t.name());
            names.add(name);
            Expected topic = expected.get(name);
            if (topic == null) {
                wrong.add(t.where() + ": topic " + name + " is neither in the catalog nor the lake's");
                continue;
            }
            JsonNode spec = t.node().path("spec");
            if (spec.path("partitions").asInt() != topic.partitions()) {
                wrong.add(t.where() + ": spec.partitions is " + spec.path("partitions") + ", " + topic.from() + " has " + topic.partitions());
            }
            topic.configs().forEach((key, value) -> {
                if (!spec.path("config").path(key).asText().equals(value)) {
                    wrong.add(t.where() + ": spec.config." + key + " is " + spec.path("config").path(key) + ", " + topic.from() + " has " + value);
                }
            });
            if (spec.path("replicas").asInt() != ManifestGenerator.REPLICAS) {
                wrong.add(t.where() + ": spec.replicas is " + spec.path("replicas") + ", not " + ManifestGenerator.REPLICAS);
            }
        }
        expected.keySet().stream().filter(n -> !names.contains(n)).forEach(n -> wrong.add("no KafkaTopic for topic " + n));
        assertThat(wrong).as("topics that differ from the catalog and the lake's").isEmpty();
    }

    @Test
    void theClusterHasThreeNodesReplicationFactorThreeAndMinInsyncTwo() {
        JsonNode pool = Manifests.one("KafkaNodePool", "dual-role").node();
        assertThat(pool.path("metadata").path("labels").path("strimzi.io/cluster").asText()).isEqualTo(ManifestGenerator.CLUSTER);
        assertThat(pool.path("spec").path("replicas").asInt()).isEqualTo(3);
        assertThat(pool.path("spec").path("roles")).extracting(JsonNode::asText).containsExactlyInAnyOrder("controller", "broker");
        JsonNode config = Manifests.one("Kafka", ManifestGenerator.CLUSTER).node().path("spec").path("kafka").path("config");
        assertThat(config.path("default.replication.factor").asInt()).isEqualTo(ManifestGenerator.REPLICAS);
        assertThat(config.path("min.insync.replicas").asInt()).isEqualTo(ManifestGenerator.MIN_INSYNC_REPLICAS);
        assertThat(config.path("transaction.state.log.min.isr").asInt()).isEqualTo(ManifestGenerator.MIN_INSYNC_REPLICAS);
        assertThat(config.path("auto.create.topics.enable").asBoolean(true)).isFalse();
    }

    @Test
    void theBrokersAndTheWorkersRunTheKafkaTheConnectWorkerIsBuiltWith() {
        String kafka = Pinned.version("connect.kafka.version");
        assertThat(Manifests.one("Kafka", ManifestGenerator.CLUSTER).node().path("spec").path("kafka").path("version").asText())
                .as("Kafka spec.kafka.version").isEqualTo(kafka);
        assertThat(Manifests.one("KafkaConnect", "streamhouse-connect").node().path("spec").path("version").asText())
                .as("KafkaConnect spec.version").isEqualTo(kafka);
    }

    @Test
    void everyClientLogsInWithScramOnTheListenerItNames() {
        JsonNode listener = Manifests.one("Kafka", ManifestGenerator.CLUSTER).node().path("spec").path("kafka").path("listeners").get(0);
        assertThat(listener.path("authentication").path("type").asText()).isEqualTo("scram-sha-512");
        assertThat(listener.path("tls").asBoolean()).as("the clients speak SASL_PLAINTEXT (KafkaClientSettings)").isFalse();
        String bootstrap = ManifestGenerator.CLUSTER + "-kafka-bootstrap:" + listener.path("port").asInt();
        List<String> wrong = new ArrayList<>();
        for (Manifests.Doc doc : Manifests.all()) {
            strings(doc.node(), "", (path, value) -> {
                if (value.contains("-kafka-bootstrap") && !value.equals(bootstrap)) {
                    wrong.add(doc.where() + ": " + path + " is " + value + ", the listener is " + bootstrap);
                }
                if (path.endsWith("STREAMHOUSE_KAFKA_SASL_MECHANISM") && !value.equals("SCRAM-SHA-512")) {
                    wrong.add(doc.where() + ": " + path + " is " + value);
                }
            });
        }
        assertThat(wrong).isEmpty();
    }

    /** Every string value with its path; an env entry's value is named after the variable. */
    static void strings(JsonNode node, String path, java.util.function.BiConsumer<String, String> each) {
        if (node.isTextual()) {
            each.accept(path, node.asText());
        } else if (node.isObject()) {
            if (node.has("name") && node.has("value") && node.path("value").isTextual()) {
                each.accept(path + "." + node.path("name").asText(), node.path("value").asText());
            }
            node.fields().forEachRemaining(e -> strings(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), each));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                strings(node.get(i), path + "[" + i + "]", each);
            }
        }
    }

    /** A KafkaUser's rules, one binding per operation, as Kafka's authorizer holds them. */
    static Set<AclBinding> bindings(Manifests.Doc user) {
        Set<AclBinding> out = new LinkedHashSet<>();
        String principal = "User:" + user.name();
        for (JsonNode rule : user.node().path("spec").path("authorization").path("acls")) {
            JsonNode r = rule.path("resource");
            ResourceType type = switch (r.path("type").asText()) {
                case "topic" -> ResourceType.TOPIC;
                case "group" -> ResourceType.GROUP;
                case "cluster" -> ResourceType.CLUSTER;
                case "transactionalId" -> ResourceType.TRANSACTIONAL_ID;
                default -> ResourceType.UNKNOWN;
            };
            ResourcePattern pattern = type == ResourceType.CLUSTER
                    ? new ResourcePattern(type, "kafka-cluster", PatternType.LITERAL)
                    : new ResourcePattern(type, r.path("name").asText(),
                    r.path("patternType").asText("literal").equals("prefix") ? PatternType.PREFIXED : PatternType.LITERAL);
            for (JsonNode op : rule.path("operations")) {
                AclOperation operation = AclOperation.fromString(op.asText().replaceAll("([a-z])([A-Z])", "$1_$2"));
                AclPermissionType permission = rule.path("type").asText("allow").equals("deny") ? AclPermissionType.DENY : AclPermissionType.ALLOW;
                out.add(new AclBinding(pattern, new AccessControlEntry(principal, rule.path("host").asText("*"), operation, permission)));
            }
        }
        return out;
    }
}
