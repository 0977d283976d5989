package io.streamhouse.api;

import io.quarkus.test.common.QuarkusTestResource;
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
class DecisionSliceTest {
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
                .body("reasons.find { it.ruleId == 'very-large-amount-block' }.ruleNow.decidedWithCurrentVersion", equalTo(true));
        get("/v1/transactions/never-seen/explanation").then().statusCode(404);
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
