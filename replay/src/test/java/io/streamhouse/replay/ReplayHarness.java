package io.streamhouse.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the replay ITs run against, one per class: a platform with the default rules and the generator's seeded
 * traffic (seed 11, 1,500 events) on it, the live Streams applications a class starts, and the CLI as
 * {@code ./streamhouse replay} runs it. Nothing here is static, so classes on platforms of their own run side by side in
 * one JVM.
 */
final class ReplayHarness implements AutoCloseable {
    static final int EVENTS = 1500;
    /** The live CEP job writes under a prefix, not to the alert topics serving reads: these stores stay empty. */
    static final java.util.Set<String> ALERT_STORES = java.util.Set.of(
            io.streamhouse.projections.serving.ServingStores.SUBJECT_ALERTS, io.streamhouse.projections.serving.ServingStores.ALERT_FEED);

    final EmbeddedPlatform platform;
    final TopicSerdes serdes;
    final Admin admin;
    final Path data;
    final Generation generation;
    private final List<KafkaStreams> live = new ArrayList<>();

    private ReplayHarness(EmbeddedPlatform platform, Path data) {
        this.platform = platform;
        this.serdes = new RegistryTopicSerdes(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()));
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()));
        this.data = data;
        this.generation = Generator.generate(GeneratorConfig.defaults(11, EVENTS));
    }

    /** The default rules, then the generator's traffic, written to {@code platform}; {@code name} names the data directory. */
    static ReplayHarness withTraffic(EmbeddedPlatform platform, String name) throws Exception {
        var harness = new ReplayHarness(platform, Files.createTempDirectory(Path.of("target"), name).toAbsolutePath());
        try (var producer = harness.producer()) {
            var rules = harness.serdes.valueSerde(Topics.RULES).serializer();
            for (var rule : DefaultRules.definitions()) {
                producer.send(new ProducerRecord<>(Topics.RULES.name(), rule.getRuleId(), rules.serialize(Topics.RULES.name(), rule))).get();
            }
        }
        harness.send(harness.generation, e -> true);
        return harness;
    }

    long transactions() {
        return generation.events().stream().filter(e -> e.kind() == io.streamhouse.loadtests.generator.EventKind.TRANSACTION).count();
    }

    /** Writes the events {@code which} accepts and waits until the broker has them all; returns how many. */
    long send(Generation events, Predicate<GeneratedEvent> which) throws Exception {
        long sent = 0;
        try (var sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : events.events()) {
                if (which.test(e)) {
                    sink.send(e);
                    sent++;
                }
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(60).toNanos());
        }
        return sent;
    }

    /** A live application as the api runs it (exactly once, short commits), its state under this harness's data. */
    KafkaStreams start(String applicationId, Topology topology) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(data.resolve("live-state")).toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        KafkaStreams streams = new KafkaStreams(topology, props);
        synchronized (live) {
            live.add(streams);
        }
        streams.start();
        return streams;
    }

    void awaitLiveAt(Target target, String applicationId) throws Exception {
        // What the group commits: the decision app's profiles global store reads shop.customers without group offsets.
        Cut cut = target.committedPart(Cut.take(admin, target.inputTopics()), io.streamhouse.plumbing.OutputTopics.LIVE);
        assertThat(Groups.awaitCaughtUp(admin, applicationId, cut, target.repartitionTopics(applicationId), Duration.ofSeconds(120),
                left -> { }, () -> false)).as("%s caught up with its inputs", applicationId).isTrue();
    }

    KafkaProducer<String, byte[]> producer() {
        return new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
    }

    TopicReader reader() {
        return new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60));
    }

    /** The CLI as {@code ./streamhouse replay} runs it. */
    record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return Records.JSON.readTree(out);
        }
    }

    static Run replay(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int exit = ReplayCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** {@code args} against this harness's data directory, broker and registry. */
    String[] stack(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--data", data.toString(), "--bootstrap-servers", platform.bootstrapServers(),
                "--registry-url", platform.schemaRegistryUrl().toString()));
        return all.toArray(String[]::new);
    }

    static JsonNode target(JsonNode summary, String target) {
        for (JsonNode t : summary.get("targets")) {
            if (t.get("target").asText().equals(target)) {
                return t;
            }
        }
        throw new AssertionError("no " + target + " in " + summary);
    }

    static JsonNode store(JsonNode target, String store) {
        for (JsonNode s : target.get("stores")) {
            if (s.get("store").asText().equals(store)) {
                return s;
            }
        }
        throw new AssertionError("no " + store + " in " + target);
    }

    @Override
    public void close() {
        synchronized (live) {
            live.forEach(s -> s.close(Duration.ofSeconds(20)));
        }
        admin.close();
    }
}
