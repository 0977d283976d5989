package io.streamhouse.ingest.transactions;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.ingest.intake.EventIntake;
import io.streamhouse.ingest.testing.LogRecords;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import jakarta.inject.Inject;
import io.streamhouse.platform.SharedPlatform;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;

@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class TransactionResourceIT {
    static final String PAN = "4111111111111111";

    @Inject
    EventIntake intake;

    static String body(String id, String amount) {
        return """
                {"transactionId": "%s", "occurredAt": "2026-03-02T09:00:00Z",
                 "card": {"number": "%s"}, "customerId": "c-7521",
                 "merchant": {"id": "m-grocer-rtm", "name": "Verse Markt", "mcc": "5411", "country": "NL"},
                 "amount": "%s", "currency": "EUR", "channel": "CONTACTLESS",
                 "location": {"lat": 51.92, "lon": 4.47}, "device": {"id": "pos-12"}}""".formatted(id, PAN, amount);
    }

    @Test
    void acceptedTransactionIsOnTheLogAsAvroWithATokenInsteadOfTheCardNumber() {
        var accepted = given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body("it-tx-1", "12.34"))
                .when().post("/v1/transactions")
                .then().statusCode(202)
                .body("id", equalTo("it-tx-1"))
                .body("topic", equalTo(Topics.TRANSACTION_REQUESTS.name()))
                .body("offset", notNullValue())
                .body(not(containsString(PAN)))
                .extract().jsonPath();

        var raw = readOne(accepted.getInt("partition"), accepted.getLong("offset"));
        assertThat(new String(raw, StandardCharsets.ISO_8859_1)).doesNotContain(PAN);
        var event = new AvroDeserializer<>(new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString()),
                TransactionAuthorizationRequested.class, false).deserialize(Topics.TRANSACTION_REQUESTS.name(), raw);
        assertThat(event.getTransactionId()).isEqualTo("it-tx-1");
        assertThat(event.getSubmittedBy()).as("the submitter, from the token").isEqualTo("test-" + Roles.PAYMENTS);
        assertThat(event.getCardToken()).startsWith("tok_").doesNotContain(PAN);
        assertThat(event.getAmount().getAmount()).isEqualTo(new BigDecimal("12.3400"));
        assertThat(event.getChannel()).isEqualTo(Channel.CONTACTLESS);
        assertThat(event.getEnvelope().getEventId()).isEqualTo(accepted.getString("eventId"));
        assertThat(event.getEnvelope().getSource()).isEqualTo("ingest-http");
    }

    @Test
    void aRetryIsOneRecordOnTheLogAndIsAnsweredWithTheOriginalPosition() {
        String id = "it-tx-" + UUID.randomUUID();
        var first = given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body(id, "5")).post("/v1/transactions")
                .then().statusCode(202).body("duplicate", equalTo(false)).extract().jsonPath();
        var retry = given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body(id, "5")).post("/v1/transactions")
                .then().statusCode(202).body("duplicate", equalTo(true)).extract().jsonPath();

        assertThat(retry.getString("eventId")).isEqualTo(first.getString("eventId"));
        assertThat(retry.getInt("partition")).isEqualTo(first.getInt("partition"));
        assertThat(retry.getLong("offset")).isEqualTo(first.getLong("offset"));
        assertThat(LogRecords.countByEventId(Topics.TRANSACTION_REQUESTS, first.getString("eventId"))).isEqualTo(1);
    }

    @Test
    void theSameTransactionIdWithADifferentAmountIsAConflictNotARetry() {
        String id = "it-tx-" + UUID.randomUUID();
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body(id, "5")).post("/v1/transactions").then().statusCode(202);
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body(id, "500")).post("/v1/transactions")
                .then().statusCode(409).contentType("application/problem+json")
                .body("errors[0].field", equalTo("transactionId"));
    }

    @Test
    void whenTooManyEventsAreInFlightTheAnswerIs429WithRetryAfterAndNothingIsWritten() {
        // Take every permit, as requests waiting for a slow broker would, then send one more.
        var limiter = intake.limiter(Topics.TRANSACTION_REQUESTS);
        var held = limiter.tryAcquire(limiter.available()).orElseThrow();
        String id = "it-tx-" + UUID.randomUUID();
        try {
            given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body(id, "7")).post("/v1/transactions")
                    .then().statusCode(429)
                    .contentType("application/problem+json")
                    .header("Retry-After", "1")
                    .body("status", equalTo(429));
        } finally {
            held.releaseAll();
        }
        assertThat(LogRecords.countByEventId(Topics.TRANSACTION_REQUESTS,
                Envelopes.derivedEventId("transaction-requested", id))).isZero();
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body(body(id, "7")).post("/v1/transactions")
                .then().statusCode(202).body("duplicate", equalTo(false));
    }

    /** Each topic has its own in-flight bound: a flood of telemetry waiting for the broker does not turn payments away. */
    @Test
    void paymentsAreAcceptedWhileTelemetryFillsItsInFlightBound() {
        var telemetry = intake.limiter(Topics.VEHICLE_TELEMETRY);
        var held = telemetry.tryAcquire(telemetry.available()).orElseThrow();
        try {
            given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON)
                    .body(body("it-tx-" + UUID.randomUUID(), "8")).post("/v1/transactions")
                    .then().statusCode(202);
        } finally {
            held.releaseAll();
        }
    }

    @Test
    void batchIsAcceptedInOrder() {
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body("[" + body("it-b-1", "1") + "," + body("it-b-2", "2") + "]")
                .post("/v1/transactions")
                .then().statusCode(202).body("$", hasSize(2)).body("id", hasItems("it-b-1", "it-b-2"));
    }

    @Test
    void everyBadFieldIsNamedAndNothingIsWritten() {
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body("""
                        {"transactionId": "", "occurredAt": "yesterday", "card": {"number": "4111111111111112"},
                         "merchant": {"id": "m1", "name": "X", "mcc": "54a1", "country": "Netherlands"},
                         "amount": "-3", "currency": "EUR", "channel": "TELEPATHY", "colour": "blue"}""")
                .post("/v1/transactions")
                .then().statusCode(422)
                .contentType("application/problem+json")
                .body("status", equalTo(422))
                .body("errors.field", hasItems("transactionId", "occurredAt", "card.number", "merchant.mcc",
                        "merchant.country", "amount", "channel", "colour"))
                .body(not(containsString("4111111111111112")));
    }

    @Test
    void badItemInABatchIsNamedByIndex() {
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body("[" + body("it-c-1", "1") + ", {\"transactionId\": \"x\"}]")
                .post("/v1/transactions")
                .then().statusCode(422).body("errors.field", hasItems("[1].occurredAt", "[1].card", "[1].merchant"));
    }

    @Test
    void malformedJsonIs400AndOversizedBodyIs413() {
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body("{\"transactionId\": ").post("/v1/transactions")
                .then().statusCode(400).contentType("application/problem+json").body("errors[0].field", equalTo("$"));
        given().auth().oauth2(TestTokens.forRole(Roles.PAYMENTS)).contentType(ContentType.JSON).body("[" + "1,".repeat(300_000) + "1]").post("/v1/transactions")
                .then().statusCode(413);
    }

    private static byte[] readOne(int partition, long offset) {
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new ByteArrayDeserializer())) {
            var tp = new TopicPartition(Topics.TRANSACTION_REQUESTS.name(), partition);
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < until) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() == offset) {
                        return r.value();
                    }
                }
            }
            throw new AssertionError("record " + tp + "@" + offset + " not found");
        }
    }
}
