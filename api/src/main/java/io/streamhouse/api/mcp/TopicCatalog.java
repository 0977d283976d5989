package io.streamhouse.api.mcp;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.RegisteredSchema;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The log as an agent sees it: the {@link Topics} catalog (the contract: descriptions, key and value types, subjects,
 * partitions, retention) joined with what the broker and the registry say now (end offsets, configs, the latest
 * registered schema). The live part is best effort with a 5 s bound: if the broker cannot answer, the catalog is
 * still given and the answer says why the live figures are missing.
 */
@ApplicationScoped
public class TopicCatalog {
    private static final long TIMEOUT_MS = 5_000;
    private final Admin admin;
    private final SchemaRegistryClient registry;
    private final ObjectMapper mapper;

    public TopicCatalog(ApiConfig config, SchemaRegistryClient registry, ObjectMapper mapper) {
        this.admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.API).admin(
                config.kafka().bootstrapServers(), Map.of(
                AdminClientConfig.CLIENT_ID_CONFIG, "streamhouse-api-mcp",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT_MS,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT_MS)));
        this.registry = registry;
        this.mapper = mapper;
    }

    public record TopicSummary(String name, String description, int partitions, String keyType, String valueType,
                               String valueSubject, String cleanupPolicy, String retention, String deadLetterTopic,
                               Long endOffsetTotal) {
    }

    public record Listing(List<TopicSummary> topics, String liveOffsets) {
    }

    public record PartitionInfo(int partition, Integer leader, int replicas, Long endOffset) {
    }

    public record SchemaInfo(String subject, int version, int id, JsonNode schema) {
    }

    public record TopicMetadata(String kind, String name, String description, String keyType, String valueType,
                                int declaredPartitions, String declaredCleanupPolicy, String declaredRetention,
                                Map<String, String> brokerConfigs, List<PartitionInfo> partitions, Long endOffsetTotal,
                                SchemaInfo schema, List<String> notes) {
    }

    /** Every domain topic (the catalog), with live end offsets summed over partitions where the broker answers. */
    public Listing list() {
        List<Topic<String, ?>> topics = Topics.all();
        Map<String, Map<Integer, Long>> offsets;
        String live;
        try {
            offsets = endOffsets(topics.stream().map(Topic::name).toList());
            live = "end offsets from the broker, summed over partitions";
        } catch (LiveUnavailable e) {
            offsets = Map.of();
            live = "unavailable: " + e.getMessage();
        }
        List<TopicSummary> out = new ArrayList<>();
        for (Topic<String, ?> t : topics) {
            Map<Integer, Long> partitions = offsets.get(t.name());
            out.add(new TopicSummary(t.name(), t.description(), t.partitions(), "string (" + keyTypeOf(t) + ")",
                    t.valueType().getSimpleName(), t.valueSubject(), t.cleanupPolicy().config(), retention(t),
                    Topics.deadLetterOf(t).name(), partitions == null ? null : sum(partitions)));
        }
        return new Listing(out, live);
    }

    /** A topic of the catalog (or a dead-letter topic) by name. */
    public static Optional<Topic<?, ?>> find(String name) {
        return Topics.allWithDeadLetters().stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public static List<String> names() {
        return Topics.allWithDeadLetters().stream().map(Topic::name).toList();
    }

    /** Catalog, broker and registry facts of one topic. */
    public TopicMetadata metadata(Topic<?, ?> topic) {
        List<String> notes = new ArrayList<>();
        Map<String, String> configs = new TreeMap<>();
        List<PartitionInfo> partitions = new ArrayList<>();
        Long total = null;
        try {
            TopicDescription description = admin.describeTopics(List.of(topic.name())).allTopicNames()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic.name());
            Map<Integer, Long> ends = endOffsets(List.of(topic.name())).getOrDefault(topic.name(), Map.of());
            description.partitions().forEach(p -> partitions.add(new PartitionInfo(p.partition(),
                    p.leader() == null ? null : p.leader().id(), p.replicas().size(), ends.get(p.partition()))));
            total = sum(ends);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic.name());
            Config config = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).get(resource);
            for (String name : List.of("cleanup.policy", "retention.ms", "min.insync.replicas", "max.message.bytes")) {
                var entry = config.get(name);
                if (entry != null && entry.value() != null) {
                    configs.put(name, entry.value());
                }
            }
        } catch (ExecutionException e) {
            notes.add(e.getCause() instanceof UnknownTopicOrPartitionException
                    ? "the topic does not exist on the broker yet (the platform creates it from the catalog)"
                    : "broker metadata unavailable: " + e.getCause().getMessage());
        } catch (TimeoutException | LiveUnavailable e) {
            notes.add("broker metadata unavailable: " + (e.getMessage() == null ? "timed out" : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            notes.add("interrupted while asking the broker");
        }
        SchemaInfo schema = null;
        if (topic.valueType() == byte[].class) {
            notes.add("a dead-letter topic: values are the original bytes, with the reason in headers; no schema");
        } else {
            String subject = topic.name() + "-value";
            try {
                RegisteredSchema latest = registry.getLatest(subject);
                schema = new SchemaInfo(latest.subject(), latest.version(), latest.id(), mapper.readTree(latest.schema().toString()));
            } catch (SchemaRegistryException e) {
                notes.add(e.errorCode() == 40401 ? "no schema registered yet under " + subject + " (nothing written yet)"
                        : "registry error for " + subject + ": " + e.getMessage());
            } catch (RuntimeException | com.fasterxml.jackson.core.JsonProcessingException e) {
                notes.add("registry unavailable for " + subject + ": " + e.getMessage());
            }
        }
        return new TopicMetadata("topic", topic.name(), topic.description(), "string (" + keyTypeOf(topic) + ")",
                topic.valueType().getSimpleName(), topic.partitions(), topic.cleanupPolicy().config(), retention(topic),
                configs, partitions, total, schema, notes);
    }

    private Map<String, Map<Integer, Long>> endOffsets(Collection<String> names) {
        try {
            Map<String, TopicDescription> described = new HashMap<>();
            var futures = admin.describeTopics(names).topicNameValues();
            for (var entry : futures.entrySet()) {
                try {
                    described.put(entry.getKey(), entry.getValue().get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw new LiveUnavailable(e.getCause().getMessage());
                    }
                }
            }
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            described.values().forEach(d -> d.partitions().forEach(p ->
                    request.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> result =
                    admin.listOffsets(request).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            Map<String, Map<Integer, Long>> out = new LinkedHashMap<>();
            result.forEach((tp, info) -> out.computeIfAbsent(tp.topic(), k -> new TreeMap<>()).put(tp.partition(), info.offset()));
            described.keySet().forEach(name -> out.computeIfAbsent(name, k -> new TreeMap<>()));
            return out;
        } catch (ExecutionException e) {
            throw new LiveUnavailable(e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new LiveUnavailable("the broker did not answer within " + Duration.ofMillis(TIMEOUT_MS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LiveUnavailable("interrupted");
        }
    }

    private static Long sum(Map<Integer, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    private static String keyTypeOf(Topic<?, ?> topic) {
        if (topic.valueType() == byte[].class) {
            return "the original record's key";
        }
        // The catalog's descriptions say "keyed by ..." (the contract of the key); anything else is the aggregate id.
        var keyedBy = java.util.regex.Pattern.compile("keyed by ([^.;]+)").matcher(topic.description());
        return keyedBy.find() ? keyedBy.group(1).trim() : "aggregate id";
    }

    private static String retention(Topic<?, ?> topic) {
        return topic.retention().map(Duration::toString).orElse("forever");
    }

    /** The broker did not give live figures. */
    static final class LiveUnavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LiveUnavailable(String message) {
            super(message, null, false, false);
        }
    }

    @PreDestroy
    void close() {
        admin.close(Duration.ofSeconds(2));
    }

    static String joined(Collection<String> values) {
        return values.stream().collect(Collectors.joining(", "));
    }
}
