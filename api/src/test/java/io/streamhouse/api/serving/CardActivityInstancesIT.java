package io.streamhouse.api.serving;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.projections.DecisionLookupProjection;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two api instances' decision apps (one application id, no standby replicas, the decision topology and the decision
 * lookup on a copy of the payments topics of their own) on the real broker: a card's activity read from either
 * instance has every payment's outcome, also those whose decisions the other instance holds, none stale; with the
 * other instance gone, those are marked unavailable rather than left looking undecided.
 */
@Execution(ExecutionMode.CONCURRENT)
@WithStreamhousePlatform
class CardActivityInstancesIT {
    private final EmbeddedPlatform platform;
    private final List<DecisionInstance> instances = new CopyOnWriteArrayList<>();

    CardActivityInstancesIT(EmbeddedPlatform platform) {
        this.platform = platform;
    }

    @AfterEach
    void stop() {
        instances.forEach(DecisionInstance::close);
    }

    @Test
    void everyPaymentsOutcomeComesFromTheInstanceHoldingItsDecision() throws Exception {
        String run = "cardit" + System.nanoTime();
        OutputTopics topics = new OutputTopics(run + ".", run + ".");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()))) {
            List<NewTopic> copies = new ArrayList<>();
            for (Topic<?, ?> t : Topics.allWithDeadLetters()) {
                copies.add(new NewTopic(topics.of(t.name()), t.partitions(), (short) -1).configs(t.configs()));
            }
            admin.createTopics(copies).all().get();
        }
        var serdes = new RegistryTopicSerdes(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()));
        DecisionInstance a = start(run, topics, serdes);
        DecisionInstance b = start(run, topics, serdes);
        a.peers = List.of(b.self);
        b.peers = List.of(a.self);
        await().atMost(Duration.ofSeconds(90)).until(() -> a.streams.state() == KafkaStreams.State.RUNNING
                && b.streams.state() == KafkaStreams.State.RUNNING
                && a.streams.metadataForLocalThreads().stream().anyMatch(t -> !t.activeTasks().isEmpty())
                && b.streams.metadataForLocalThreads().stream().anyMatch(t -> !t.activeTasks().isEmpty()));

        String card = "tok_" + run;
        List<String> ids = new ArrayList<>();
        var serializer = new AvroSerializer<>(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()),
                TransactionAuthorizationRequested.class, false);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            // Two payments on each partition of the decisions, so each instance holds some of their decisions.
            int[] perPartition = new int[Topics.TRANSACTION_DECISIONS.partitions()];
            for (int i = 0; ids.size() < 2 * perPartition.length; i++) {
                String id = run + "-tx-" + i;
                if (perPartition[DecisionOutcomes.partitionOf(id)]++ >= 2) {
                    continue;
                }
                ids.add(0, id);
                var request = SampleEvents.transaction(id, card, "12.50", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(ids.size()));
                producer.send(new ProducerRecord<>(topics.input(Topics.TRANSACTION_REQUESTS.name()), card,
                        serializer.serialize(Topics.TRANSACTION_REQUESTS.name(), request))).get();
            }
        }
        Set<Integer> partitions = new TreeSet<>(ids.stream().map(DecisionOutcomes::partitionOf).toList());
        assertThat(partitions).as("the payments' decisions spread over every partition").hasSize(Topics.TRANSACTION_DECISIONS.partitions());

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (DecisionInstance via : List.of(a, b)) {
                CardActivityView view = via.activity(card);
                assertThat(view.activity()).extracting(CardActivityView.Entry::transactionId).containsExactlyElementsOf(ids);
                assertThat(view.activity()).allSatisfy(e -> {
                    assertThat(e.outcome()).as(e.transactionId() + " asked via " + via.self).isIn("ALLOW", "REVIEW", "BLOCK");
                    assertThat(e.outcomeStale()).isFalse();
                    assertThat(e.outcomeUnavailable()).isFalse();
                });
            }
        });
        Map<String, String> decided = new java.util.HashMap<>();
        a.activity(card).activity().forEach(e -> decided.put(e.transactionId(), e.outcome()));
        Set<Integer> heldByA = new DecisionReplica(a.streams).read(ids, false).partitions();
        assertThat(heldByA).as("each instance holds some of the decisions, so some outcomes came from the other")
                .isNotEmpty().isNotEqualTo(partitions);

        b.close();
        // Until the group notices B is gone (its session timeout), nobody answers for B's partitions and no standby
        // holds them: their outcomes are unavailable, A's are still there.
        var outcomes = new DecisionOutcomes(new DecisionReplica(a.streams), () -> a.peers, a.forwarder).find(ids);
        for (String id : ids) {
            if (heldByA.contains(DecisionOutcomes.partitionOf(id))) {
                assertThat(outcomes.get(id)).as(id).isEqualTo(new DecisionOutcomes.Outcome(decided.get(id), false, false));
            } else {
                assertThat(outcomes.get(id)).as(id).isEqualTo(new DecisionOutcomes.Outcome(null, false, true));
            }
        }
    }

    private DecisionInstance start(String run, OutputTopics topics, TopicSerdes serdes) {
        var instance = new DecisionInstance(run, topics, platform.bootstrapServers(), serdes,
                platform.options().dataDir().resolve("card-activity-it-state"));
        instances.add(instance);
        return instance;
    }

    /**
     * One api instance's decision app without Quarkus, with a JDK HTTP server answering the two instance-to-instance
     * routes the card activity uses as {@code InternalStateResource} does.
     */
    static final class DecisionInstance implements AutoCloseable {
        final HttpServer http;
        final HostInfo self;
        final KafkaStreams streams;
        final Forwarder forwarder = new HttpForwarder(Duration.ofMillis(300), Duration.ofSeconds(2));
        volatile List<HostInfo> peers = List.of();
        private boolean closed;

        DecisionInstance(String applicationId, OutputTopics topics, String bootstrap, TopicSerdes serdes, Path stateDir) {
            try {
                http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            self = new HostInfo("127.0.0.1", http.getAddress().getPort());
            StreamsBuilder builder = new StreamsBuilder();
            DecisionTopology.addTo(builder, new DecisionTopology.Config(Clock.systemUTC(), topics), serdes);
            DecisionLookupProjection.addTo(builder, serdes, topics);
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve("i-" + self.port()).toString());
            // No standby: a decision is held by one instance only, as with three instances and one standby each.
            props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 0);
            props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
            streams = new KafkaStreams(builder.build(), props);
            http.createContext("/internal/v1/", this::handle);
            http.start();
            streams.start();
        }

        CardActivityView activity(String card) {
            CardActivityRouting.Found found = CardActivityResource.find(card, streams, self.host() + ":" + self.port(),
                    () -> peers, forwarder);
            assertThat(found).isInstanceOf(CardActivityRouting.Held.class);
            return ((CardActivityRouting.Held) found).view();
        }

        private void handle(HttpExchange exchange) throws IOException {
            String path = exchange.getRequestURI().getRawPath();
            List<String> ids = new ArrayList<>();
            boolean standby = false;
            String raw = exchange.getRequestURI().getRawQuery();
            for (String pair : raw == null ? new String[0] : raw.split("&")) {
                String value = URLDecoder.decode(pair.substring(pair.indexOf('=') + 1), StandardCharsets.UTF_8);
                if (pair.startsWith("id=")) {
                    ids.add(value);
                } else if (pair.equals("standby=true")) {
                    standby = true;
                }
            }
            Optional<byte[]> body = Optional.empty();
            if (path.equals(DecisionOutcomes.INTERNAL_PATH)) {
                body = Optional.of(DecisionOutcomes.encode(new DecisionReplica(streams).read(ids, standby)));
            } else if (path.startsWith(CardActivityRouting.INTERNAL_PATH) && path.endsWith("/activity")) {
                String card = URLDecoder.decode(path.substring(CardActivityRouting.INTERNAL_PATH.length(),
                        path.length() - "/activity".length()), StandardCharsets.UTF_8);
                body = new CardActivityReplica(streams, self.host() + ":" + self.port()).read(card, standby).map(CardActivityRouting::encode);
            }
            if (body.isPresent()) {
                exchange.sendResponseHeaders(200, body.get().length);
                exchange.getResponseBody().write(body.get());
            } else {
                exchange.sendResponseHeaders(503, -1);
            }
            exchange.close();
        }

        /** As a killed process looks to the other: the port stops answering and the member does not leave the group. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            http.stop(0);
            streams.close(Duration.ofSeconds(10));
        }
    }
}
