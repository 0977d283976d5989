package io.streamhouse.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.connect.LakePreparation;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.platform.KafkaAcls;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The Strimzi {@code KafkaTopic} and {@code KafkaUser} resources, built from the code that the local platform runs
 * with: the topic catalog ({@link Topics#allWithDeadLetters()}, what the platform's {@code TopicProvisioner} creates)
 * and the ACL table ({@link KafkaAcls}). One source of truth: the committed YAML is this output, and
 * {@code GeneratedManifestsTest} fails, naming the resource and field, when the two differ.
 *
 * <p>Users: every {@link KafkaPrincipal} below the super users (the broker's identity and the platform's
 * administration are Strimzi's own operators on a cluster), SCRAM-SHA-512, each ACL of {@link KafkaAcls#of} as one
 * Strimzi rule per resource pattern with its operations. Topics: the catalog's partitions and configs, replicated
 * {@value #REPLICAS} times; {@code min.insync.replicas} comes from the cluster's default ({@value #MIN_INSYNC_REPLICAS}).
 */
public final class ManifestGenerator {

    /** The Strimzi {@code Kafka} resource's name: the label of every topic and user, and the bootstrap service's stem. */
    public static final String CLUSTER = "streamhouse";
    public static final int REPLICAS = 3;
    public static final int MIN_INSYNC_REPLICAS = 2;
    public static final String STRIMZI_API = "kafka.strimzi.io/v1";
    public static final String TOPICS_FILE = "20-kafka-topics.yaml";
    public static final String USERS_FILE = "21-kafka-users.yaml";
    /** Principals that get no KafkaUser: super users, whose role Strimzi's broker identity and operators take. */
    public static final Set<KafkaPrincipal> NOT_USERS = Set.of(KafkaPrincipal.BROKER, KafkaPrincipal.PLATFORM);

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                    .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                    .build())
            .build();

    private ManifestGenerator() {
    }

    /** One {@code KafkaTopic} per topic the platform creates, in the catalog's order. */
    public static List<ObjectNode> topics() {
        List<ObjectNode> topics = new ArrayList<>();
        for (Topic<?, ?> t : Topics.allWithDeadLetters()) {
            topics.add(topic(t.name(), t.partitions(), t.configs()));
        }
        // The lake sink's control topic of this cluster and its dead-letter topic: the platform creates them locally as
        // the administrator; here the connect user that runs the sink and its preparation may not create topics.
        for (NewTopic t : lakeTopics()) {
            topics.add(topic(t.name(), t.numPartitions(), new TreeMap<>(t.configs())));
        }
        return topics;
    }

    private static ObjectNode topic(String name, int partitions, Map<String, String> configs) {
        ObjectNode topic = resource("KafkaTopic", name);
        ObjectNode spec = topic.putObject("spec");
        spec.put("topicName", name);
        spec.put("partitions", partitions);
        spec.put("replicas", REPLICAS);
        ObjectNode config = spec.putObject("config");
        configs.forEach(config::put);
        return topic;
    }

    /** The lake's control topic on this cluster ({@link LakeConnector#controlTopicOf} the {@code Kafka} resource's name) and dead-letter topic. */
    public static List<NewTopic> lakeTopics() {
        return List.of(LakePreparation.controlTopic(LakeConnector.controlTopicOf(CLUSTER)), LakePreparation.deadLetterTopic());
    }

    /** One {@code KafkaUser} per principal with ACLs, in {@link KafkaPrincipal}'s order. */
    public static List<ObjectNode> users() {
        List<ObjectNode> users = new ArrayList<>();
        for (KafkaPrincipal p : KafkaPrincipal.values()) {
            if (NOT_USERS.contains(p)) {
                continue;
            }
            ObjectNode user = resource("KafkaUser", p.userName());
            ObjectNode spec = user.putObject("spec");
            spec.putObject("authentication").put("type", "scram-sha-512");
            ObjectNode authorization = spec.putObject("authorization");
            authorization.put("type", "simple");
            ArrayNode acls = authorization.putArray("acls");
            rules(KafkaAcls.of(p)).forEach(acls::add);
            users.add(user);
        }
        return users;
    }

    /** Each resource pattern once, with its operations in the table's order. */
    static List<ObjectNode> rules(List<AclBinding> bindings) {
        Map<ResourcePattern, List<AclOperation>> byPattern = new LinkedHashMap<>();
        for (AclBinding b : bindings) {
            if (!b.entry().host().equals("*")) {
                throw new IllegalArgumentException("a Strimzi rule from any host only: " + b);
            }
            byPattern.computeIfAbsent(b.pattern(), k -> new ArrayList<>()).add(b.entry().operation());
        }
        List<ObjectNode> rules = new ArrayList<>();
        byPattern.forEach((pattern, operations) -> {
            ObjectNode rule = JSON.objectNode();
            ObjectNode resource = rule.putObject("resource");
            resource.put("type", resourceType(pattern));
            if (!pattern.resourceType().equals(org.apache.kafka.common.resource.ResourceType.CLUSTER)) {
                resource.put("name", pattern.name());
                resource.put("patternType", patternType(pattern.patternType()));
            }
            ArrayNode ops = rule.putArray("operations");
            operations.forEach(op -> ops.add(operation(op)));
            rule.put("host", "*");
            rules.add(rule);
        });
        return rules;
    }

    /** Strimzi's name of a Kafka resource type. */
    static String resourceType(ResourcePattern pattern) {
        return switch (pattern.resourceType()) {
            case TOPIC -> "topic";
            case GROUP -> "group";
            case CLUSTER -> "cluster";
            case TRANSACTIONAL_ID -> "transactionalId";
            default -> throw new IllegalArgumentException("no Strimzi ACL resource for " + pattern);
        };
    }

    static String patternType(PatternType type) {
        return switch (type) {
            case LITERAL -> "literal";
            case PREFIXED -> "prefix";
            default -> throw new IllegalArgumentException("no Strimzi pattern type for " + type);
        };
    }

    /** Strimzi's name of an operation: Kafka's, in upper camel case ({@code IDEMPOTENT_WRITE} → {@code IdempotentWrite}). */
    static String operation(AclOperation op) {
        StringBuilder name = new StringBuilder();
        for (String word : op.name().split("_")) {
            name.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
        }
        return name.toString();
    }

    /** The generated files, by name, as they are committed under {@code manifests/}. */
    public static Map<String, String> files() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(TOPICS_FILE, yaml("The catalog's topics (Topics.allWithDeadLetters(): what the platform's TopicProvisioner creates).", topics()));
        files.put(USERS_FILE, yaml("One SCRAM-SHA-512 user per KafkaPrincipal below the super users, with its KafkaAcls rows.", users()));
        return files;
    }

    /** The generated resources of {@code file}, as trees. */
    public static List<ObjectNode> resources(String file) {
        return switch (file) {
            case TOPICS_FILE -> topics();
            case USERS_FILE -> users();
            default -> throw new IllegalArgumentException("not a generated file: " + file);
        };
    }

    static String yaml(String what, List<? extends JsonNode> documents) {
        StringBuilder out = new StringBuilder()
                .append("# GENERATED by io.streamhouse.kubernetes.ManifestsMain from the code: do not edit.\n")
                .append("# ").append(what).append('\n')
                .append("# Regenerate: docs/kubernetes.md, \"The generator\".\n");
        for (JsonNode doc : documents) {
            try {
                out.append(YAML.writeValueAsString(doc));
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.toString();
    }

    private static ObjectNode resource(String kind, String name) {
        ObjectNode r = JSON.objectNode();
        r.put("apiVersion", STRIMZI_API);
        r.put("kind", kind);
        ObjectNode metadata = r.putObject("metadata");
        metadata.put("name", name);
        metadata.putObject("labels").put("strimzi.io/cluster", CLUSTER);
        return r;
    }
}
