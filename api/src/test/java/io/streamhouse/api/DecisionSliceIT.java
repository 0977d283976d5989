package io.streamhouse.api;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.quarkus.test.common.QuarkusTestResource;
import io.streamhouse.tracing.testing.RecordedSpans;
import jakarta.inject.Inject;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import io.streamhouse.platform.SharedPlatform;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.get;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/** The decision flow on a real broker and registry: request on the log → decision topology → store → HTTP. */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class DecisionSliceIT {
    /** Requests of this class go out as test-staff: a token with reviewer, rules_admin, ops. */
    @org.junit.jupiter.api.BeforeEach
    void authenticate() {
        io.restassured.RestAssured.requestSpecification = new io.restassured.builder.RequestSpecBuilder()
                .addHeader("Authorization", TestTokens.bearer(TestTokens.of("test-staff", Roles.REVIEWER, Roles.RULES_ADMIN, Roles.OPS))).build();
    }

    @org.junit.jupiter.api.AfterEach
    void forgetToken() {
        io.restassured.RestAssured.requestSpecification = null;
    }


    @Test
    void requestOnTheLogIsDecidedAndExplainedOverHttp() throws Exception {
        RequestLog.awaitReady();
        long rulesInForce = get("/v1/rules").then().extract().jsonPath().getLong("ruleSetVersion");
        RequestLog.send(SampleEvents.transaction("slice-1", Cards.STOLEN, "25000", "EUR", Merchants.CASINO_MALTA, Times.T0));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                get("/v1/transactions/slice-1/decision").then().statusCode(200));
        get("/v1/transactions/slice-1/decision").then()
                .body("outcome", equalTo("BLOCK"))
                .body("ruleSetVersion", equalTo((int) rulesInForce))
                .body("reasons.ruleId", hasItem("very-large-amount-block"))
                .body("reasons.ruleId", hasItem("high-risk-merchant-review"))
                .body("reasons.find { it.ruleId == 'very-large-amount-block' }.facts.amount", equalTo("25000.0000"));
        get("/v1/transactions/slice-1/explanation").then().statusCode(200)
                .body("outcome", equalTo("BLOCK"))
                .body("summary", org.hamcrest.Matchers.startsWith("Blocked because very-large-amount-block v1 (BLOCK)"))
                .body("requestEventId", equalTo("evt-slice-1"))
                .body("reasons.find { it.ruleId == 'card-spend-24h-review' }.contributingTransactions", equalTo(List.of("slice-1")))
                .body("reasons.find { it.ruleId == 'very-large-amount-block' }.ruleNow.decidedWithCurrentVersion", equalTo(true))
                .body("alertsRead.topic", equalTo("alerts.fraud"))
                .body("alertsRead.cardOffset", org.hamcrest.Matchers.greaterThanOrEqualTo(-1));
        get("/v1/transactions/never-seen/explanation").then().statusCode(404);
    }

    @Inject
    InMemorySpanExporter spans;

    /**
     * The decision app's half of the authorize trace (ingest's AuthorizeResourceIT has the rest): a request that
     * comes with a traceparent, as ingest's producer writes it, is decided inside that trace, and its decision goes out
     * carrying the trace back to the waiting request.
     */
    @Test
    void aRequestIsDecidedInsideTheTraceItCameWith() throws Exception {
        String traceId = java.util.HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16)
                .putLong(System.nanoTime()).putLong(0x5eed5eedL).array());
        String publishSpanId = "00f067aa0ba902b7";
        // A card no other test here pays with: a card's second payment folds nested Avro state, which fails inside
        // the @QuarkusTest class loader (see application.properties, streamhouse.serving.enabled).
        var request = SampleEvents.transaction("slice-traced", Cards.BOB, "4", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
        RequestLog.send(request.getCardToken(), RequestLog.avro(request),
                Map.of("traceparent", "00-" + traceId + "-" + publishSpanId + "-01"));

        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "trace-check", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.TRANSACTION_DECISIONS.name()));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if ("slice-traced".equals(r.key())) {
                        assertThat(RecordedSpans.traceIdOf(r.headers())).as("trace on the decision record").isEqualTo(traceId);
                        return true;
                    }
                }
                return false;
            });
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            var trace = RecordedSpans.ofTrace(spans, traceId);
            assertThat(trace).as("the topology's process span, child of the request's publish span").anyMatch(s ->
                    s.getKind() == SpanKind.CONSUMER && publishSpanId.equals(s.getParentSpanId())
                            && Topics.TRANSACTION_REQUESTS.name().equals(s.getAttributes().get(RecordedSpans.DESTINATION)));
            assertThat(RecordedSpans.has(trace, SpanKind.PRODUCER, Topics.TRANSACTION_DECISIONS.name())).as("decision publish").isTrue();
        });
    }

    @Test
    void metricsShowTheDecisionAppsConsumerLag() {
        RequestLog.awaitReady();
        assertThat(get("/q/metrics").then().statusCode(200).extract().asString()).as("records lag of the decision app")
                .containsPattern("kafka_consumer_fetch_manager_records_lag_max\\{[^}]*client_id=\"streamhouse-api-");
    }

    @Test
    void unreadableRequestIsDeadLetteredAndTheNextIsStillDecided() throws Exception {
        byte[] garbage = "not avro at all".getBytes(StandardCharsets.UTF_8);
        RequestLog.send("card-of-the-garbage", garbage);
        RequestLog.send(SampleEvents.transaction("slice-after-bad", Cards.ALICE, "3", "EUR",
                Merchants.GROCER_ROTTERDAM, Times.T0));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                get("/v1/transactions/slice-after-bad/decision").then().statusCode(200).body("outcome", equalTo("ALLOW")));
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "dlq-check", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.deadLetterOf(Topics.TRANSACTION_REQUESTS).name()));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if ("card-of-the-garbage".equals(r.key())) {
                        assertThat(r.value()).isEqualTo(garbage);
                        assertThat(new String(r.headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                                .contains("magic byte");
                        return true;
                    }
                }
                return false;
            });
        }
    }

    @Test
    void unknownAndMalformedIdsAreExplained() {
        get("/v1/transactions/never-seen/decision").then().statusCode(404)
                .contentType("application/problem+json").body("detail", org.hamcrest.Matchers.containsString("never-seen"));
        given().urlEncodingEnabled(false).get("/v1/transactions/%20bad%20id/decision").then().statusCode(400);
    }

    @Test
    void readyOnlyWhenStreamsRunsWithTheRulesLoaded() {
        RequestLog.awaitReady();
        int rules = get("/v1/rules").then().extract().jsonPath().getList("rules").size();
        assertThat(rules).isGreaterThanOrEqualTo(9);
        get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'kafka-streams-running' }.data.rules", equalTo(rules));
    }
}
