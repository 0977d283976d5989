package io.streamhouse.api.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.ReviewOutcome;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An agent's view of the app: the official MCP Java SDK client over streamable HTTP against the running app on the
 * shared platform (real broker, registry, the api's Kafka Streams). Decisions are seeded by writing requests to the
 * log, as ingest would, each on a card of its own: the app is shared by every @QuarkusTest class, and a card's
 * second payment cannot be decided inside one (its state store reads Avro classes from the wrong class loader).
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class McpServerIT {
    /** Requests of this class go out as test-agent: a token with agent, ops. */
    @org.junit.jupiter.api.BeforeEach
    void authenticate() {
        io.streamhouse.api.Callers.authenticateAs("test-agent", Roles.AGENT, Roles.OPS);
    }

    @org.junit.jupiter.api.AfterEach
    void forgetToken() {
        io.streamhouse.api.Callers.forget();
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL root;

    private McpSyncClient client;

    @BeforeEach
    void connect() {
        client = McpClient.sync(HttpClientStreamableHttpTransport.builder(root.toString()).endpoint("/mcp")
                .httpRequestCustomizer((request, method, uri, body, context) -> request.header("Authorization", TestTokens.bearer(
                        TestTokens.of("test-agent", Roles.AGENT))))
                .build())
                .requestTimeout(Duration.ofSeconds(30))
                .clientInfo(new McpSchema.Implementation("streamhouse-test-agent", "1"))
                .build();
        client.initialize();
    }

    @AfterEach
    void disconnect() {
        client.closeGracefully();
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    private McpSchema.CallToolResult call(String tool, Map<String, Object> args) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args));
    }

    private static String text(McpSchema.CallToolResult result) {
        assertThat(result.content()).isNotEmpty();
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    private JsonNode ok(String tool, Map<String, Object> args) throws Exception {
        McpSchema.CallToolResult result = call(tool, args);
        assertThat(result.isError()).as("%s %s → %s", tool, args, result.content()).isFalse();
        return JSON.readTree(text(result));
    }

    private String error(String tool, Map<String, Object> args) {
        McpSchema.CallToolResult result = call(tool, args);
        assertThat(result.isError()).as("%s %s should be an error result, was %s", tool, args, result.content()).isTrue();
        return text(result);
    }

    private static void awaitReady() {
        try {
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> get("/q/health/ready").then().statusCode(200));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("not ready: " + get("/q/health/ready").asString() + " rules: " + get("/v1/rules").asString(), e);
        }
    }

    private static void send(TransactionAuthorizationRequested request) throws Exception {
        var registry = new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString());
        byte[] value = new AvroSerializer<>(registry, TransactionAuthorizationRequested.class, false)
                .serialize(Topics.TRANSACTION_REQUESTS.name(), request);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.TRANSACTION_REQUESTS.name(), request.getCardToken(), value)).get();
        }
    }

    /** Sends a request and waits until the MCP server can see its decision; returns the decision's outcome. */
    private String decided(TransactionAuthorizationRequested request) throws Exception {
        awaitReady();
        send(request);
        String id = request.getTransactionId();
        await().atMost(Duration.ofSeconds(60)).until(() -> !call("queryData",
                Map.of("store", "decisions-by-transaction", "key", id)).isError());
        return ok("queryData", Map.of("store", "decisions-by-transaction", "key", id)).get("outcome").asText();
    }

    // ---- tests ---------------------------------------------------------------------------------------------------

    @Test
    @SuppressWarnings("unchecked")
    void listsEveryTool() {
        List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
        assertThat(names).containsExactlyInAnyOrder("listTopics", "getMetadata", "queryData", "where_is_parcel",
                "customer_state", "vehicle_health", "recent_alerts", "why_blocked", "record_review_outcome", "snapshot_query");
        McpSchema.Tool review = client.listTools().tools().stream().filter(t -> t.name().equals("record_review_outcome"))
                .findFirst().orElseThrow();
        assertThat((List<Object>) review.inputSchema().get("required")).containsExactlyInAnyOrder("transactionId", "outcome", "reviewer");
        assertThat(review.annotations().readOnlyHint()).isFalse();
    }

    @Test
    void listTopicsGivesTheCatalogWithLiveEndOffsets() throws Exception {
        assertThat(decided(SampleEvents.transaction("mcp-topics-1", "tok_mcp_topics", "3", "EUR",
                Merchants.GROCER_ROTTERDAM, Times.T0))).isEqualTo("ALLOW");

        JsonNode listing = ok("listTopics", Map.of());
        assertThat(listing.get("liveOffsets").asText()).startsWith("end offsets from the broker");
        Map<String, JsonNode> byName = new HashMap<>();
        listing.get("topics").forEach(t -> byName.put(t.get("name").asText(), t));
        assertThat(byName).containsKeys(Topics.all().stream().map(t -> t.name()).toArray(String[]::new));
        JsonNode requests = byName.get("payments.transactions.requested");
        assertThat(requests.get("partitions").asInt()).isEqualTo(6);
        assertThat(requests.get("valueType").asText()).isEqualTo("TransactionAuthorizationRequested");
        assertThat(requests.get("valueSubject").asText()).isEqualTo("payments.transactions.requested-value");
        assertThat(requests.get("keyType").asText()).contains("card token");
        assertThat(requests.get("endOffsetTotal").asLong()).isPositive();
        assertThat(byName.get("payments.transactions.reviews").get("deadLetterTopic").asText())
                .isEqualTo("payments.transactions.reviews.dlq");
    }

    @Test
    void getMetadataDescribesATopicFromRegistryAndBrokerAndAStore() throws Exception {
        decided(SampleEvents.transaction("mcp-meta-1", "tok_mcp_meta", "3", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0));

        JsonNode topic = ok("getMetadata", Map.of("name", "payments.transactions.requested"));
        assertThat(topic.get("kind").asText()).isEqualTo("topic");
        assertThat(topic.get("schema").get("subject").asText()).isEqualTo("payments.transactions.requested-value");
        assertThat(topic.get("schema").get("version").asInt()).isPositive();
        assertThat(topic.get("schema").get("schema").get("name").asText()).isEqualTo("TransactionAuthorizationRequested");
        assertThat(topic.get("partitions")).hasSize(6);
        assertThat(topic.get("brokerConfigs").get("cleanup.policy").asText()).isEqualTo("delete");
        assertThat(topic.get("brokerConfigs").get("retention.ms").asText()).isEqualTo("-1");
        assertThat(topic.get("endOffsetTotal").asLong()).isPositive();

        JsonNode dlq = ok("getMetadata", Map.of("name", "payments.transactions.requested.dlq"));
        assertThat(dlq.get("schema").isNull()).isTrue();
        assertThat(dlq.get("notes").toString()).contains("dead-letter topic");

        JsonNode store = ok("getMetadata", Map.of("name", "decisions-by-transaction"));
        assertThat(store.get("kind").asText()).isEqualTo("store");
        assertThat(store.get("key").asText()).isEqualTo("transaction id");

        assertThat(error("getMetadata", Map.of("name", "no.such.topic")))
                .contains("unknown topic or store 'no.such.topic'").contains("payments.transactions.decisions");
    }

    @Test
    void whyBlockedExplainsASeededDecisionAndUnknownIdsAreErrorResults() throws Exception {
        assertThat(decided(SampleEvents.transaction("mcp-blocked-1", "tok_mcp_stolen", "25000", "EUR",
                Merchants.CASINO_MALTA, Times.T0))).isEqualTo("BLOCK");

        JsonNode why = ok("why_blocked", Map.of("transactionId", "mcp-blocked-1"));
        assertThat(why.get("outcome").asText()).isEqualTo("BLOCK");
        assertThat(why.get("summary").asText()).startsWith("Blocked because very-large-amount-block v1 (BLOCK)");
        assertThat(why.get("requestEventId").asText()).isEqualTo("evt-mcp-blocked-1");
        assertThat(why.get("reasons").findValuesAsText("ruleId")).contains("very-large-amount-block", "high-risk-merchant-review");

        assertThat(error("why_blocked", Map.of("transactionId", "mcp-never-seen")))
                .contains("no decision is recorded for transaction mcp-never-seen");
        assertThat(error("why_blocked", Map.of("transactionId", "bad id!"))).contains("malformed transactionId");
        assertThat(error("queryData", Map.of("store", "decisions-by-transaction", "key", "mcp-never-seen")))
                .contains("no decision is recorded for transaction mcp-never-seen");
        assertThat(error("queryData", Map.of("store", "no-such-store", "key", "x")))
                .contains("unknown store 'no-such-store'").contains("decisions-by-transaction");
        assertThat(ok("queryData", Map.of("store", "rules-definitions-global", "key", "flagged-subject-block"))
                .get("kind").asText()).isEqualTo("flagged-subject");
        assertThat(error("queryData", Map.of("store", "decisions-by-transaction", "key", "mcp-blocked-1", "asOf", "yesterday")))
                .contains("malformed asOf");
    }

    /**
     * The action reaches the decision flow: the verdict lands on the reviews topic keyed by the card, and the api's
     * decision topology turns it into the card's fraud alert on alerts.fraud (which feeds the flagged-subject rule).
     * That the card's next payment is then BLOCKed is shown by ReviewOutcomeRoutingTest (TopologyTestDriver): a
     * card's second payment cannot be decided inside a @QuarkusTest, where the card's state store reads Avro
     * classes from the wrong class loader (the known trap; DecisionSliceIT uses one payment per card for it).
     */
    @Test
    void aConfirmedFraudReviewIsWrittenKeyedByCardAndFlagsTheCardOnTheFraudAlerts() throws Exception {
        String card = "tok_mcp_review_fraud";
        assertThat(decided(SampleEvents.transaction("mcp-held-1", card, "1500.00", "EUR", Merchants.GROCER_ROTTERDAM,
                Times.T0))).isEqualTo("REVIEW");

        JsonNode recorded = ok("record_review_outcome", Map.of("transactionId", "mcp-held-1", "outcome", "CONFIRMED_FRAUD",
                "reviewer", "agent-smith", "note", "cardholder denies the payment"));
        assertThat(recorded.get("topic").asText()).isEqualTo("payments.transactions.reviews");
        assertThat(recorded.get("cardToken").asText()).isEqualTo(card);
        assertThat(recorded.get("effect").asText()).contains("flagged-subject-block v1 → BLOCK within P1D");
        String eventId = recorded.get("eventId").asText();

        ReviewOutcomeRecorded review = readOne(Topics.REVIEW_OUTCOMES, ReviewOutcomeRecorded.class, card);
        assertThat(review.getEnvelope().getEventId()).isEqualTo(eventId);
        assertThat(review.getOutcome()).isEqualTo(ReviewOutcome.CONFIRMED_FRAUD);
        assertThat(review.getTransactionId()).isEqualTo("mcp-held-1");
        assertThat(review.getReviewer()).isEqualTo("agent-smith");
        assertThat(review.getNote()).isEqualTo("cardholder denies the payment");
        assertThat(review.getDecisionEventId()).isEqualTo(
                ok("queryData", Map.of("store", "decisions-by-transaction", "key", "mcp-held-1")).get("decisionEventId").asText());

        Alert flag = readOne(Topics.FRAUD_ALERTS, Alert.class, card);
        assertThat(flag.getAlertId()).isEqualTo("review-" + eventId);
        assertThat(flag.getPatternId()).isEqualTo("review-outcome");
        assertThat(flag.getSummary()).contains("fraud confirmed by agent-smith reviewing transaction mcp-held-1");

        JsonNode again = ok("record_review_outcome", Map.of("transactionId", "mcp-held-1", "outcome", "CONFIRMED_FRAUD",
                "reviewer", "agent-smith"));
        assertThat(again.get("eventId").asText()).as("a retried call carries the same event id").isEqualTo(eventId);
    }

    @Test
    void aLegitimateReviewIsRecordedAndSaysItChangesNoDecision() throws Exception {
        String card = "tok_mcp_review_ok";
        assertThat(decided(SampleEvents.transaction("mcp-held-2", card, "1500.00", "EUR", Merchants.GROCER_ROTTERDAM,
                Times.T0))).isEqualTo("REVIEW");
        JsonNode recorded = ok("record_review_outcome", Map.of("transactionId", "mcp-held-2", "outcome", "legitimate",
                "reviewer", "agent-smith"));
        assertThat(recorded.get("outcome").asText()).isEqualTo("LEGITIMATE");
        assertThat(recorded.get("effect").asText()).contains("no decision changes");

        ReviewOutcomeRecorded review = readOne(Topics.REVIEW_OUTCOMES, ReviewOutcomeRecorded.class, card);
        assertThat(review.getOutcome()).isEqualTo(ReviewOutcome.LEGITIMATE);
        assertThat(review.getNote()).isNull();
    }

    /** The first record keyed {@code key} on a topic, decoded with the registry, read_committed, within 60 s. */
    private static <V extends org.apache.avro.specific.SpecificRecord> V readOne(
            io.streamhouse.domain.topic.Topic<String, V> topic, Class<V> type, String key) {
        var registry = new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString());
        var deserializer = new AvroDeserializer<>(registry, type, false);
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "mcp-test-" + topic.name() + "-" + key,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic.name()));
            java.util.concurrent.atomic.AtomicReference<V> found = new java.util.concurrent.atomic.AtomicReference<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(r.key()) && found.get() == null) {
                        found.set(deserializer.deserialize(topic.name(), r.value()));
                    }
                }
                return found.get() != null;
            });
            return found.get();
        }
    }

    @Test
    void aReviewIsRefusedWithTheReasonUnlessTheTransactionWasHeldForReview() throws Exception {
        assertThat(decided(SampleEvents.transaction("mcp-allowed-1", "tok_mcp_refused", "3", "EUR",
                Merchants.GROCER_ROTTERDAM, Times.T0))).isEqualTo("ALLOW");

        assertThat(error("record_review_outcome", Map.of("transactionId", "mcp-allowed-1", "outcome", "CONFIRMED_FRAUD",
                "reviewer", "agent-smith"))).contains("was decided ALLOW, not REVIEW");
        assertThat(error("record_review_outcome", Map.of("transactionId", "mcp-nobody", "outcome", "LEGITIMATE",
                "reviewer", "agent-smith"))).contains("no decision is recorded for transaction mcp-nobody");
        assertThat(error("record_review_outcome", Map.of("transactionId", "mcp-allowed-1", "outcome", "MAYBE",
                "reviewer", "agent-smith"))).contains("'MAYBE' is not one of CONFIRMED_FRAUD | LEGITIMATE");
        assertThat(error("record_review_outcome", Map.of("transactionId", "mcp-allowed-1", "outcome", "LEGITIMATE",
                "reviewer", " "))).contains("reviewer is required");
        McpSchema.CallToolResult missing = call("record_review_outcome", Map.of("transactionId", "mcp-allowed-1"));
        assertThat(missing.isError()).as("a missing required argument is an error result too").isTrue();
    }

    /**
     * The serving projections do not run inside @QuarkusTest (%test.streamhouse.serving.enabled=false: the class
     * loader trap), so here their tools must say that nobody can answer — never invent one. Their answers are covered
     * by ProjectionToolsTest (the tools over a projection answer) and the serving tests outside Quarkus.
     */
    @Test
    void projectionToolsSayWhenTheProjectionsAreNotRunning() throws Exception {
        String notRunning = "the serving projections are not running on this instance";
        assertThat(error("where_is_parcel", Map.of("parcelId", "P-1042"))).contains(notRunning);
        assertThat(error("customer_state", Map.of("customerId", "c-1"))).contains(notRunning);
        assertThat(error("vehicle_health", Map.of("vehicleId", "V-7", "asOf", "2026-03-02T09:00:00Z"))).contains(notRunning);
        assertThat(error("recent_alerts", Map.of())).contains(notRunning);
        assertThat(error("queryData", Map.of("store", "parcel-tracking", "key", "P-1042"))).contains(notRunning);
        assertThat(error("recent_alerts", Map.of("limit", 0))).contains("limit must be between 1 and 100");
        assertThat(error("where_is_parcel", Map.of("parcelId", "P 1042"))).contains("malformed parcelId");
        assertThat(ok("getMetadata", Map.of("name", "parcel-tracking")).get("queryWith").asText()).contains("where_is_parcel");
    }
}
