package io.streamhouse.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.ingest.cdc.CdcNormaliser;
import io.streamhouse.lake.LakeAudit;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.projections.serving.ServingStores;
import io.streamhouse.projections.serving.ServingTopology;
import io.streamhouse.replay.ReplayCli;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.VersionedRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The five end-to-end flows on one platform whose Kafka and PostgreSQL a subclass provides: capture (a shop commit →
 * Debezium in the platform's Connect worker → the CDC normaliser → an {@code OrderPlaced}), decide (the generator's
 * transaction requests → the decision topology → one decision each), serve (a parcel looked up in the serving
 * topology's store), replay (the replay CLI's rebuild of both equals live), land (the Iceberg sink's table, read by
 * Iceberg's own scan, equals what Kafka's read_committed consumer reads). Each flow uses the parts the embedded suite
 * uses ({@code CdcEndToEndIT}, {@code ReplayRebuildIT}, {@code LakeOnThePlatformIT}): the platform's {@code cdc()} and
 * {@code lake()}, {@code CdcNormaliser}, {@code DecisionTopology}, {@code ServingTopology}, {@code ReplayCli},
 * {@code LakeAudit}; only where Kafka and PostgreSQL come from differs between subclasses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class EndToEndFlows {
    private static final int EVENTS = 600;
    private static final Duration CATCH_UP = Duration.ofSeconds(120);

    private final String run = Long.toString(System.nanoTime() % 1_000_000);
    private final String liveDecisions = "e2e-api-" + run, liveServing = "e2e-serving-" + run;
    private EmbeddedPlatform platform;
    private TopicSerdes serdes;
    private Path data;
    private Generation generation;
    private final List<KafkaStreams> live = new ArrayList<>();

    /**
     * Starts Kafka and PostgreSQL where the subclass takes them from, and the platform on them (ephemeral, in
     * {@code dir}). Whatever it starts besides the platform it closes in {@link #stopKafkaAndPostgres()}.
     */
    protected abstract EmbeddedPlatform startPlatformOnKafkaAndPostgres(Path dir) throws Exception;

    /** Stops what {@link #startPlatformOnKafkaAndPostgres} started besides the platform; called after the platform closed. */
    protected abstract void stopKafkaAndPostgres();

    @BeforeAll
    void platformRulesTrafficAndLiveApps() throws Exception {
        data = Files.createTempDirectory(Path.of("target"), "e2e-" + getClass().getSimpleName() + "-").toAbsolutePath();
        platform = startPlatformOnKafkaAndPostgres(data.resolve("platform"));
        serdes = new RegistryTopicSerdes(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()));
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            var rules = serdes.valueSerde(Topics.RULES).serializer();
            for (var rule : DefaultRules.definitions()) {
                producer.send(new ProducerRecord<>(Topics.RULES.name(), rule.getRuleId(), rules.serialize(Topics.RULES.name(), rule))).get();
            }
        }
        generation = Generator.generate(GeneratorConfig.defaults(17, EVENTS));
        try (var sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : generation.events()) {
                sink.send(e);
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(60).toNanos());
        }
        live.add(startStreams(liveDecisions, DecisionTopology.build(new DecisionTopology.Config(Clock.systemUTC()), serdes)));
        live.add(startStreams(liveServing, ServingTopology.build(ServingTopology.Config.defaults(), serdes)));
    }

    /** The platform the flows run on, once {@link #startPlatformOnKafkaAndPostgres} returned it. */
    protected EmbeddedPlatform platform() {
        return platform;
    }

    @AfterAll
    void stopEverything() {
        live.forEach(s -> s.close(Duration.ofSeconds(20)));
        try {
            if (platform != null) {
                platform.close();
            }
        } finally {
            stopKafkaAndPostgres();
        }
    }

    /** Capture: a committed order becomes one {@code OrderPlaced} on {@code shop.orders}, through Debezium and the normaliser. */
    @Test
    @Order(1)
    void aCommittedShopOrderIsCapturedAndBecomesAnOrderPlacedEvent() throws Exception {
        platform.cdc();
        try (CdcNormaliser normaliser = CdcNormaliser.start(new CdcNormaliser.Settings(platform.bootstrapServers(),
                platform.schemaRegistryUrl().toString(), data.resolve("cdc-state"), "e2e-cdc-" + run, null))) {
            await().atMost(Duration.ofSeconds(60)).until(normaliser::isRunning);
            captureOneOrder();
        }
    }

    /**
     * Commits a customer and an order in one transaction and awaits both domain events, so that when the normaliser
     * stops nothing of it is still to come: the replay flow compares live and shadow on a log no one writes to, as
     * ReplayRebuildIT does (a record arriving after its cut is in live and not in the shadow).
     */
    private void captureOneOrder() throws Exception {
        String order = "e2e-o-" + UUID.randomUUID();
        try (Connection c = platform.postgres().connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO shop.customers (id, email, full_name, registered_at) VALUES ('c-" + order
                    + "', 'ada@example.com', 'Ada', now())");
            s.execute("INSERT INTO shop.orders (id, customer_id, status, currency, total, line_count, ship_line1,"
                    + " ship_city, ship_postal_code, ship_country, placed_at, updated_at) VALUES ('" + order
                    + "', 'c-" + order + "', 'PLACED', 'EUR', 42.5050, 1, 'Coolsingel 1', 'Rotterdam', '3011AA', 'NL', now(), now())");
            s.execute("INSERT INTO shop.order_lines (order_id, line_no, sku, quantity, unit_price) VALUES ('" + order
                    + "', 1, 'sku-1', 1, 42.5050)");
            c.commit();
        }
        List<OrderEvent> events = new ArrayList<>();
        List<CustomerEvent> customerEvents = new ArrayList<>();
        var orders = serdes.valueSerde(Topics.ORDERS).deserializer();
        var customers = serdes.valueSerde(Topics.CUSTOMERS).deserializer();
        try (var consumer = readCommitted()) {
            consumer.subscribe(List.of(Topics.ORDERS.name(), Topics.CUSTOMERS.name()));
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null && r.topic().equals(Topics.ORDERS.name()) && order.equals(r.key())) {
                        events.add(orders.deserialize(r.topic(), r.value()));
                    } else if (r.value() != null && r.topic().equals(Topics.CUSTOMERS.name()) && ("c-" + order).equals(r.key())) {
                        customerEvents.add(customers.deserialize(r.topic(), r.value()));
                    }
                }
                return !events.isEmpty() && !customerEvents.isEmpty();
            });
        }
        assertThat(customerEvents).hasSize(1);
        assertThat(customerEvents.get(0).getChange()).isInstanceOf(CustomerRegistered.class);
        assertThat(events).hasSize(1);
        assertThat(events.get(0).getChange()).isInstanceOf(OrderPlaced.class);
        OrderPlaced placed = (OrderPlaced) events.get(0).getChange();
        assertThat(placed.getTotal().getAmount()).isEqualByComparingTo("42.5050");
        assertThat(placed.getLines()).hasSize(1);
    }

    /** Decide: every generated transaction request gets exactly one decision, ALLOW, REVIEW or BLOCK. */
    @Test
    @Order(2)
    void everyTransactionRequestGetsExactlyOneDecision() throws Exception {
        Set<String> requested = new LinkedHashSet<>();
        for (GeneratedEvent e : generation.events()) {
            if (e.kind() == EventKind.TRANSACTION) {
                requested.add(((TransactionAuthorizationRequested) e.value()).getTransactionId());
            }
        }
        assertThat(requested).as("the generator's transactions").hasSizeGreaterThan(50);
        Map<String, List<DecisionOutcome>> decided = new HashMap<>();
        var decisions = serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer();
        try (var consumer = readCommitted()) {
            consumer.subscribe(List.of(Topics.TRANSACTION_DECISIONS.name()));
            await().atMost(CATCH_UP).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    TransactionDecision d = decisions.deserialize(r.topic(), r.value());
                    decided.computeIfAbsent(d.getTransactionId(), k -> new ArrayList<>()).add(d.getOutcome());
                }
                return decided.keySet().containsAll(requested);
            });
            consumer.poll(Duration.ofSeconds(1)).forEach(r -> {
                TransactionDecision d = decisions.deserialize(r.topic(), r.value());
                decided.computeIfAbsent(d.getTransactionId(), k -> new ArrayList<>()).add(d.getOutcome());
            });
        }
        assertThat(decided.keySet()).containsExactlyInAnyOrderElementsOf(requested);
        assertThat(decided.values()).allSatisfy(outcomes -> assertThat(outcomes).as("one decision per transaction").hasSize(1));
        assertThat(decided.values().stream().map(o -> o.get(0)).distinct()).as("outcomes seen").isNotEmpty()
                .allMatch(o -> o == DecisionOutcome.ALLOW || o == DecisionOutcome.REVIEW || o == DecisionOutcome.BLOCK);
    }

    /** Serve: a parcel's key looked up in the serving topology's store (Kafka Streams' IQv2) answers with its state. */
    @Test
    @Order(3)
    void aParcelLookedUpByItsKeyAnswersFromTheServingProjection() {
        String parcel = generation.events().stream().filter(e -> e.kind() == EventKind.PARCEL_SCAN).map(GeneratedEvent::key)
                .findFirst().orElseThrow();
        KafkaStreams serving = live.get(1);
        VersionedKeyQuery<String, ParcelTracking> query = VersionedKeyQuery.withKey(parcel);
        await().atMost(CATCH_UP).untilAsserted(() -> {
            assertThat(serving.state()).isEqualTo(KafkaStreams.State.RUNNING);
            var results = serving.query(StateQueryRequest.inStore(ServingStores.PARCEL_TRACKING).withQuery(query).requireActive());
            VersionedRecord<ParcelTracking> found = results.getPartitionResults().values().stream()
                    .filter(QueryResult::isSuccess).map(QueryResult::getResult).filter(java.util.Objects::nonNull)
                    .findFirst().orElse(null);
            assertThat(found).as("parcel %s in %s", parcel, ServingStores.PARCEL_TRACKING).isNotNull();
            assertThat(found.value().getParcelId()).isEqualTo(parcel);
        });
    }

    /** Replay: the replay CLI rebuilds decisions and serving from offset 0 into shadows, and they equal live. */
    @Test
    @Order(4)
    void aRebuildOfDecisionsAndServingEqualsLive() throws Exception {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int exit = ReplayCli.run(new String[]{"rebuild", "api", "--id", "e2e-" + run, "--json", "--data", data.toString(),
                        "--bootstrap-servers", platform.bootstrapServers(), "--registry-url", platform.schemaRegistryUrl().toString(),
                        "--serving-app-id", liveServing, "--decisions-app-id", liveDecisions, "--timeout", "180", "--live-timeout", "120"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8) + printed).isZero();
        JsonNode summary = new com.fasterxml.jackson.databind.ObjectMapper().readTree(printed);
        assertThat(summary.get("result").asText()).isEqualTo("EQUAL");
        assertThat(summary.get("divergences").asLong()).isZero();
        assertThat(summary.get("targets")).hasSize(2);
    }

    /** Land: the Iceberg sink lands the decisions; Iceberg's scan and Kafka's read_committed consumer agree, no duplicates. */
    @Test
    @Order(5)
    void theDecisionsLandInIcebergExactlyAsKafkaHoldsThem() throws Exception {
        platform.lake();
        Topic<String, TransactionDecision> topic = Topics.TRANSACTION_DECISIONS;
        Catalog catalog = CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, platform.lakeCatalog(), new org.apache.hadoop.conf.Configuration());
        try {
            await().atMost(CATCH_UP).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                var committed = LakeAudit.readCommitted(platform.bootstrapServers(), topic.name(), Duration.ofSeconds(30));
                var landed = LakeAudit.landed(catalog, topic.name());
                var audit = LakeAudit.compare(topic.name(), landed, committed, Set.of());
                assertThat(committed).isNotEmpty();
                assertThat(audit.equal()).as("Iceberg equals Kafka, no duplicate rows: %s", audit).isTrue();
            });
        } finally {
            if (catalog instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    private KafkaConsumer<String, byte[]> readCommitted() {
        return new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "e2e-" + run + "-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer());
    }

    private KafkaStreams startStreams(String applicationId, Topology topology) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(data.resolve("live-state")).toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        KafkaStreams streams = new KafkaStreams(topology, props);
        streams.start();
        return streams;
    }
}
