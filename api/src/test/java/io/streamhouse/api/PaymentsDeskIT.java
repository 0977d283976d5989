package io.streamhouse.api;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.restassured.RestAssured.get;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/**
 * The payments desk's routes on a real broker (#39): decisions as they are made, a reviewer's verdict, a card's
 * recent activity. One payment per card: a card's second payment cannot be decided inside a @QuarkusTest (the class
 * loader trap DecisionSliceIT and McpServerIT describe).
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class PaymentsDeskIT {
    private static final String REVIEWER = "desk-reviewer";

    @BeforeEach
    void authenticate() {
        Callers.authenticateAs(REVIEWER, Roles.REVIEWER);
    }

    @AfterEach
    void forget() {
        Callers.forget();
    }

    /** Sends a request and waits for its decision; returns its outcome. */
    private static String decided(String transactionId, String card, String amount) throws Exception {
        RequestLog.send(SampleEvents.transaction(transactionId, card, amount, "EUR", Merchants.GROCER_ROTTERDAM, Times.T0));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                get("/v1/transactions/" + transactionId + "/decision").then().statusCode(200));
        return get("/v1/transactions/" + transactionId + "/decision").then().extract().path("outcome");
    }

    @Test
    void aDecisionArrivesOnTheStreamAsItIsMade() throws Exception {
        RequestLog.awaitReady();
        var lines = new LinkedBlockingQueue<String>();
        var response = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + RestAssured.port + "/v1/decisions/stream"))
                        .header("Authorization", TestTokens.bearer(TestTokens.of("desk-ops", Roles.OPS))).GET().build(),
                HttpResponse.BodyHandlers.ofLines());
        response.thenAcceptAsync(r -> r.body().forEach(lines::add));
        // The broadcaster starts at the end of the topic: send payments (one card each) until one arrives on the stream.
        String seen = null;
        for (int attempt = 0; attempt < 20 && seen == null; attempt++) {
            String id = "desk-live-" + attempt;
            RequestLog.send(SampleEvents.transaction(id, "tok_desk_live_" + attempt, "1500.00", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            String line;
            while (seen == null && (line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) != null) {
                if (line.startsWith("data:") && line.contains("\"transactionId\":\"" + id + "\"")) {
                    seen = line;
                }
            }
        }
        assertThat(response.get(10, TimeUnit.SECONDS).headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        assertThat(seen).as("an SSE data line with the decision").isNotNull()
                .contains("\"cardToken\":\"tok_desk_live_").contains("\"outcome\":\"REVIEW\"")
                .contains("\"ruleSetVersion\":").contains("\"requestedAt\":\"2026-").contains("\"decidedAt\":")
                .contains("\"decisionLatencyMillis\":").contains("\"ruleVersion\":").contains("\"message\":")
                .doesNotContain("\"facts\"");
    }

    @Test
    void aReviewerRecordsAVerdictOnAPaymentHeldForReview() throws Exception {
        String card = "tok_desk_review";
        assertThat(decided("desk-held-1", card, "1500.00")).isEqualTo("REVIEW");

        given().contentType("application/json").body("{\"outcome\":\"CONFIRMED_FRAUD\",\"note\":\"cardholder denies it\"}")
                .post("/v1/transactions/desk-held-1/review").then().statusCode(202)
                .body("transactionId", equalTo("desk-held-1"))
                .body("outcome", equalTo("CONFIRMED_FRAUD"))
                .body("reviewer", equalTo(REVIEWER))
                .body("cardToken", equalTo(card))
                .body("topic", equalTo(Topics.REVIEW_OUTCOMES.name()));

        ReviewOutcomeRecorded review = readOne(card);
        assertThat(review.getReviewer()).as("the token's subject, never the body's").isEqualTo(REVIEWER);
        assertThat(review.getNote()).isEqualTo("cardholder denies it");
        assertThat(review.getEnvelope().getSource()).isEqualTo("api-http");
    }

    @Test
    void aBadReviewIsRefusedNamingTheFieldAndAnAllowedPaymentTakesNone() throws Exception {
        assertThat(decided("desk-allowed-1", "tok_desk_allowed", "3")).isEqualTo("ALLOW");

        given().contentType("application/json").body("{\"outcome\":\"MAYBE\"}")
                .post("/v1/transactions/desk-allowed-1/review").then().statusCode(400)
                .contentType("application/problem+json").body("errors.field", hasItem("outcome"));
        given().contentType("application/json").body("{\"outcome\":\"LEGITIMATE\",\"reviewer\":\"someone-else\"}")
                .post("/v1/transactions/desk-allowed-1/review").then().statusCode(400).body("errors.field", hasItem("reviewer"));
        given().contentType("application/json").body("{\"outcome\":\"LEGITIMATE\",\"note\":\"" + "x".repeat(1001) + "\"}")
                .post("/v1/transactions/desk-allowed-1/review").then().statusCode(400).body("errors.field", hasItem("note"));
        given().contentType("application/json").body("{\"outcome\":")
                .post("/v1/transactions/desk-allowed-1/review").then().statusCode(400).body("errors.field", hasItem("body"));
        given().contentType("application/json").body("{\"outcome\":\"LEGITIMATE\"}")
                .post("/v1/transactions/desk-allowed-1/review").then().statusCode(409)
                .body("detail", org.hamcrest.Matchers.containsString("was decided ALLOW, not REVIEW"));
        given().contentType("application/json").body("{\"outcome\":\"LEGITIMATE\"}")
                .post("/v1/transactions/desk-nobody/review").then().statusCode(404);

        Callers.forget();
        given().header("Authorization", TestTokens.bearer(TestTokens.of("desk-ops", Roles.OPS, Roles.PAYMENTS, Roles.AGENT)))
                .contentType("application/json").body("{\"outcome\":\"LEGITIMATE\"}")
                .post("/v1/transactions/desk-allowed-1/review").then().statusCode(403)
                .body("detail", org.hamcrest.Matchers.containsString("the role reviewer"));
    }

    @Test
    void aCardsActivityListsItsPaymentsWithTheirOutcomes() throws Exception {
        String card = "tok_desk_activity";
        assertThat(decided("desk-act-1", card, "1500.00")).isEqualTo("REVIEW");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> get("/v1/cards/" + card + "/activity").then().statusCode(200)
                .body("cardToken", equalTo(card))
                .body("activity[0].transactionId", equalTo("desk-act-1"))
                .body("activity[0].occurredAt", equalTo(Times.T0.toString()))
                .body("activity[0].amount", equalTo("1500.0000"))
                .body("activity[0].currency", equalTo("EUR"))
                .body("activity[0].merchantId", equalTo(Merchants.GROCER_ROTTERDAM.getMerchantId()))
                .body("activity[0].merchantCountry", equalTo("NL"))
                .body("activity[0].channel", equalTo("ECOMMERCE"))
                .body("activity[0].outcome", equalTo("REVIEW"))
                .body("activity[0].outcomeStale", equalTo(false))
                .body("activity[0].outcomeUnavailable", equalTo(false))
                .body("stale", equalTo(false)));
        get("/v1/cards/tok_desk_never_paid/activity").then().statusCode(404).contentType("application/problem+json");
        get("/v1/cards/4111111111111111/activity").then().statusCode(400).body("errors.field", hasItem("cardToken"))
                .body("detail", org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("4111111111111111")));
        Callers.forget();
        given().header("Authorization", TestTokens.bearer(TestTokens.of("desk-ops", Roles.OPS)))
                .get("/v1/cards/" + card + "/activity").then().statusCode(403);
    }

    private static ReviewOutcomeRecorded readOne(String key) {
        var deserializer = new AvroDeserializer<>(new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString()),
                ReviewOutcomeRecorded.class, false);
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "desk-test-" + key, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.REVIEW_OUTCOMES.name()));
            AtomicReference<ReviewOutcomeRecorded> found = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(r.key()) && found.get() == null) {
                        found.set(deserializer.deserialize(Topics.REVIEW_OUTCOMES.name(), r.value()));
                    }
                }
                return found.get() != null;
            });
            return found.get();
        }
    }
}
