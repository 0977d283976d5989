package io.streamhouse.ingest.authorize;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
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
class AuthorizeResourceTest {

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
        var requests = new AvroDeserializer<>(registry(), TransactionAuthorizationRequested.class, false);
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "authorize-test-" + transactionId,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.TRANSACTION_REQUESTS.name()));
            var found = new TransactionAuthorizationRequested[1];
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(100))) {
                    var request = requests.deserialize(r.topic(), r.value());
                    if (request.getTransactionId().equals(transactionId)) {
                        found[0] = request;
                        return true;
                    }
                }
                return false;
            });
            return found[0];
        }
    }

    /** Decides as the decision topology does for a card's first payment, and records it on the decisions topic. */
    private static void decide(TransactionAuthorizationRequested request) throws Exception {
        var decision = Decisions.toEvent(request, DefaultRules.ruleSet().decide(request,
                Features.of(CardFeatures.firstPayment(request.getTransactionId(), request.getAmount().getAmount()))), Instant.now());
        var serializer = new AvroSerializer<>(registry(), TransactionDecision.class, false);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedPlatform.get().bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), decision.getTransactionId(),
                    serializer.serialize(Topics.TRANSACTION_DECISIONS.name(), decision))).get();
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
