package io.streamhouse.ingest.authorize;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.tracing.testing.RecordedSpans;
import io.streamhouse.tracing.KafkaTracing;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import io.restassured.http.ContentType;
import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.events.Fingerprints;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.SharedPlatform;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.get;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/**
 * Synchronous authorize on the shared platform. What ingest owns is tested here: the request is on the log before
 * the wait, the decision is picked off the decisions topic and answered, past the deadline the answer is an explicit
 * fallback while the request stays on the log, and a retry gets the decision already made. The decisions are made
 * by a small decider in this test with the domain's own logic (a KafkaStreams started from inside a QuarkusTest
 * mixes class loaders); the real decision topology answering authorize end to end is covered by the launcher's
 * demo load ({@code LauncherIT}).
 */
@QuarkusTest
class AuthorizeResourceIT {

    private static String payment(String id, String amount, String mcc) {
        return """
                {"transactionId": "%s", "occurredAt": "2026-03-02T09:00:00Z",
                 "card": {"number": "4000000000000002"}, "customerId": "c-1",
                 "merchant": {"id": "m-1", "name": "Somewhere", "mcc": "%s", "country": "NL"},
                 "amount": "%s", "currency": "EUR", "channel": "ECOMMERCE"}""".formatted(id, mcc, amount);
    }

    private static void awaitReady() {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> get("/q/health/ready").then().statusCode(200));
    }

    private static CachingSchemaRegistryClient registry() {
        return new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString());
    }

    /** Reads requests from the log until {@code transactionId}'s appears; returns it (it was written before the wait). */
    private static TransactionAuthorizationRequested requestOnTheLog(String transactionId) {
        return recordOnTheLog(transactionId).getValue();
    }

    /** The request and the record it came in (with its headers). */
    private static Map.Entry<ConsumerRecord<String, byte[]>, TransactionAuthorizationRequested> recordOnTheLog(String transactionId) {
        var requests = new AvroDeserializer<>(registry(), TransactionAuthorizationRequested.class, false);
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "authorize-test-" + transactionId,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.TRANSACTION_REQUESTS.name()));
            var found = new java.util.ArrayList<Map.Entry<ConsumerRecord<String, byte[]>, TransactionAuthorizationRequested>>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(100))) {
                    var request = requests.deserialize(r.topic(), r.value());
                    if (request.getTransactionId().equals(transactionId)) {
                        found.add(Map.entry(r, request));
                        return true;
                    }
                }
                return false;
            });
            return found.get(0);
        }
    }

    /** Decides as the decision topology does for a card's first payment, and records it on the decisions topic. */
    private static void decide(TransactionAuthorizationRequested request) throws Exception {
        decide(request, OpenTelemetry.noop());
    }

    /**
     * The same, traced as the decision app traces it (tracing's processor wrapper and client supplier): the request's
     * trace is current while it is decided, and the producer writes it onto the decision.
     */
    private static void decide(TransactionAuthorizationRequested request, OpenTelemetry openTelemetry) throws Exception {
        decide(request, openTelemetry, HexFormat.of().formatHex(Fingerprints.of(request)));
    }

    /** The same, with the fingerprint the decision says it was made for (the topology's header). */
    private static void decide(TransactionAuthorizationRequested request, OpenTelemetry openTelemetry, String madeFor) throws Exception {
        var decision = Decisions.toEvent(request, DefaultRules.ruleSet().decide(request,
                Features.of(CardFeatures.firstPayment(request.getTransactionId(), request.getAmount().getAmount()))), Instant.now());
        var serializer = new AvroSerializer<>(registry(), TransactionDecision.class, false);
        try (var producer = KafkaTracing.producer(openTelemetry, new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedPlatform.get().bootstrapServers()), new StringSerializer(), new ByteArraySerializer()))) {
            var record = new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), decision.getTransactionId(),
                    serializer.serialize(Topics.TRANSACTION_DECISIONS.name(), decision));
            record.headers().add(Decisions.REQUEST_FINGERPRINT_HEADER, madeFor.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            producer.send(record).get();
        }
    }

    private static CompletableFuture<io.restassured.response.Response> authorizeAsync(String body, long deadlineMs) {
        return CompletableFuture.supplyAsync(() -> given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body)
                .post("/v1/transactions/authorize?deadlineMs=" + deadlineMs));
    }

    @Test
    void answersWithTheDecisionRecordedForTheRequest() throws Exception {
        awaitReady();
        String id = "auth-" + UUID.randomUUID();
        var answer = authorizeAsync(payment(id, "25000.00", "7995"), 10_000);
        decide(requestOnTheLog(id));
        answer.get(20, TimeUnit.SECONDS).then().statusCode(200)
                .body("transactionId", equalTo(id))
                .body("decided", equalTo(true))
                .body("outcome", equalTo("BLOCK"))
                .body("reasons.ruleId", hasItem("very-large-amount-block"))
                .body("ruleSetVersion", equalTo(10));
    }

    /**
     * The decision that comes back was made for another request under this transaction id (the topology answers a
     * reused id with its first decision, and dead-letters the request): a 409 naming the field, never that decision.
     * The happy path above also proves that ingest's fingerprint of a request is the one computed from the log.
     */
    @Test
    void aDecisionMadeForAnotherRequestUnderTheSameTransactionIdIsAConflict() throws Exception {
        awaitReady();
        String id = "auth-conflict-" + UUID.randomUUID();
        var answer = authorizeAsync(payment(id, "12.00", "5411"), 10_000);
        var request = requestOnTheLog(id);
        // Another amount under the same id (changed in place and put back: a copy would need Avro to load the classes
        // again, which goes wrong under Quarkus' class loaders).
        var amount = request.getAmount();
        request.setAmount(io.streamhouse.domain.events.Monies.of("13.00", "EUR"));
        String otherRequest = HexFormat.of().formatHex(Fingerprints.of(request));
        request.setAmount(amount);
        decide(request, OpenTelemetry.noop(), otherRequest);
        answer.get(20, TimeUnit.SECONDS).then().statusCode(409)
                .contentType("application/problem+json")
                .body("title", equalTo("Transaction already decided"))
                .body("errors.field", hasItem("transactionId"));
    }

    @Inject
    InMemorySpanExporter spans;

    @Inject
    OpenTelemetry openTelemetry;

    /**
     * One trace from the HTTP request to its answer: the authorize span, the request's publish span, the decider's
     * process and publish spans (as the decision app makes them; api's DecisionTraceTest runs the real topology), and
     * the waiter's process span that hands the decision to the waiting request.
     */
    @Test
    void oneTraceRunsFromTheRequestThroughTheLogToTheAnswer() throws Exception {
        awaitReady();
        String id = "auth-trace-" + UUID.randomUUID();
        var answer = authorizeAsync(payment(id, "12.00", "5411"), 10_000);
        var onTheLog = recordOnTheLog(id);
        String traceId = RecordedSpans.traceIdOf(onTheLog.getKey().headers());
        assertThat(traceId).as("traceparent header of the request record").isNotNull();
        var process = KafkaTracing.startProcessing(openTelemetry, Topics.TRANSACTION_REQUESTS.name(), onTheLog.getKey().headers());
        try (var ignored = process.makeCurrent()) {
            decide(onTheLog.getValue(), openTelemetry);
        } finally {
            process.end();
        }
        answer.get(20, TimeUnit.SECONDS).then().statusCode(200).body("decided", equalTo(true));

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            var trace = RecordedSpans.ofTrace(spans, traceId);
            assertThat(trace).as("authorize HTTP span")
                    .anyMatch(s -> s.getKind() == SpanKind.SERVER && s.getName().contains("/v1/transactions/authorize"));
            assertThat(RecordedSpans.has(trace, SpanKind.PRODUCER, Topics.TRANSACTION_REQUESTS.name())).as("request publish").isTrue();
            assertThat(RecordedSpans.has(trace, SpanKind.CONSUMER, Topics.TRANSACTION_REQUESTS.name())).as("decider process").isTrue();
            assertThat(RecordedSpans.has(trace, SpanKind.PRODUCER, Topics.TRANSACTION_DECISIONS.name())).as("decision publish").isTrue();
            assertThat(trace).as("the waiter's span that answered the request").anyMatch(s -> s.getKind() == SpanKind.CONSUMER
                    && Topics.TRANSACTION_DECISIONS.name().equals(s.getAttributes().get(RecordedSpans.DESTINATION))
                    && Boolean.TRUE.equals(s.getAttributes().get(AttributeKey.booleanKey("streamhouse.answered"))));
        });
    }

    @Test
    void metricsShowTheAuthorizeLatencyHistogramAndTheWaitersLag() {
        awaitReady();
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON)
                .body(payment("auth-metrics-" + UUID.randomUUID(), "3.00", "5411"))
                .post("/v1/transactions/authorize?deadlineMs=1").then().statusCode(200);
        String metrics = given().auth().oauth2(TestTokens.forRole(Roles.OPS)).get("/q/metrics")
                .then().statusCode(200).extract().asString();
        assertThat(metrics).as("authorize latency histogram")
                .containsPattern("streamhouse_authorize_latency_seconds_bucket\\{[^}]*outcome=\"fallback\"");
        assertThat(metrics).as("fallback answers counted")
                .containsPattern("streamhouse_authorize_latency_seconds_count\\{[^}]*outcome=\"fallback\"[^}]*\\} [1-9]");
        assertThat(metrics).as("the decision waiter's consumer lag")
                .containsPattern("kafka_consumer_fetch_manager_records_lag_max\\{[^}]*client_id=\"streamhouse-ingest-decision-waiter\"");
    }

    @Test
    void pastTheDeadlineTheAnswerIsAnExplicitFallbackAndTheRequestIsStillOnTheLog() {
        awaitReady();
        String id = "auth-late-" + UUID.randomUUID();
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(payment(id, "12.00", "5411"))
                .post("/v1/transactions/authorize?deadlineMs=1")
                .then().statusCode(200)
                .body("decided", equalTo(false))
                .body("outcome", equalTo("REVIEW"))
                .body("reasons[0].ruleId", equalTo("timeout"));
        assertThat(requestOnTheLog(id).getAmount().getAmount()).isEqualByComparingTo("12.00");
    }

    @Test
    void aRetriedAuthorizeGetsTheDecisionAlreadyMade() throws Exception {
        awaitReady();
        String id = "auth-retry-" + UUID.randomUUID();
        var first = authorizeAsync(payment(id, "1500.00", "5411"), 10_000);
        decide(requestOnTheLog(id));
        first.get(20, TimeUnit.SECONDS).then().statusCode(200).body("outcome", equalTo("REVIEW"));
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(payment(id, "1500.00", "5411"))
                .post("/v1/transactions/authorize?deadlineMs=5000")
                .then().statusCode(200).body("decided", equalTo(true)).body("outcome", equalTo("REVIEW"));
    }

    @Test
    void badInputIsRefusedNamingTheField() {
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(payment("auth-bad", "-5", "5411"))
                .post("/v1/transactions/authorize").then().statusCode(422).body("errors.field", hasItem("amount"));
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(payment("auth-bad", "5", "5411"))
                .post("/v1/transactions/authorize?deadlineMs=600000").then().statusCode(422)
                .body("errors.field", hasItem("deadlineMs"));
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body("[" + payment("auth-bad", "5", "5411") + "]")
                .post("/v1/transactions/authorize").then().statusCode(422);
    }
}
