package io.streamhouse.api;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.get;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.not;

/** Rules are data: a new version published over HTTP changes decisions within seconds, without a restart. */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class RulesAdminIT {
    /** Requests of this class go out as test-staff: a token with rules_admin, reviewer. */
    @org.junit.jupiter.api.BeforeEach
    void authenticate() {
        io.streamhouse.api.Callers.authenticateAs("test-staff", Roles.RULES_ADMIN, Roles.REVIEWER);
    }

    @org.junit.jupiter.api.AfterEach
    void forgetToken() {
        io.streamhouse.api.Callers.forget();
    }


    private static long ruleSetVersion() {
        return get("/v1/rules").then().statusCode(200).extract().jsonPath().getLong("ruleSetVersion");
    }

    @Test
    void aPublishedRuleTakesEffectAndDecisionsCarryTheVersionTheyUsed() throws Exception {
        RequestLog.awaitReady();
        long before = ruleSetVersion();

        given().contentType(ContentType.JSON).body("""
                        {"kind": "merchant-category", "outcome": "BLOCK", "parameters": {"mccs": "7995"},
                         "description": "Block gambling outright", "expectedVersion": 0}""")
                .put("/v1/rules/it-gambling-block")
                .then().statusCode(202).body("version", equalTo(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> ruleSetVersion() == before + 1);

        RequestLog.send(SampleEvents.transaction("rules-1", "tok_rules_card_1", "20", "EUR", Merchants.CASINO_MALTA, Times.T0));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> get("/v1/transactions/rules-1/decision").then().statusCode(200));
        get("/v1/transactions/rules-1/decision").then()
                .body("outcome", equalTo("BLOCK"))
                .body("ruleSetVersion", equalTo((int) before + 1))
                .body("reasons.find { it.ruleId == 'it-gambling-block' }.ruleVersion", equalTo(1));

        given().contentType(ContentType.JSON).body("""
                        {"kind": "merchant-category", "outcome": "BLOCK", "enabled": false, "parameters": {"mccs": "7995"},
                         "expectedVersion": 1}""")
                .put("/v1/rules/it-gambling-block")
                .then().statusCode(202).body("version", equalTo(2)).body("enabled", equalTo(false));
        await().atMost(Duration.ofSeconds(10)).until(() -> ruleSetVersion() == before + 2);

        RequestLog.send(SampleEvents.transaction("rules-2", "tok_rules_card_2", "20", "EUR", Merchants.CASINO_MALTA, Times.T0));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> get("/v1/transactions/rules-2/decision").then().statusCode(200));
        get("/v1/transactions/rules-2/decision").then()
                .body("outcome", equalTo("REVIEW"))
                .body("ruleSetVersion", equalTo((int) before + 2))
                .body("reasons.ruleId", not(hasItem("it-gambling-block")));
        get("/v1/rules/it-gambling-block").then().statusCode(200).body("version", equalTo(2));
    }

    @Test
    void aStaleExpectedVersionIsAConflict() {
        RequestLog.awaitReady();
        given().contentType(ContentType.JSON).body("""
                        {"kind": "amount-threshold", "outcome": "REVIEW",
                         "parameters": {"threshold": "1000.00", "currency": "EUR"}, "expectedVersion": 0}""")
                .put("/v1/rules/large-amount-review")
                .then().statusCode(409).contentType("application/problem+json");
    }

    @Test
    void anInvalidDefinitionIsRefusedNamingTheFieldAndNothingIsPublished() {
        RequestLog.awaitReady();
        long before = ruleSetVersion();
        given().contentType(ContentType.JSON).body("""
                        {"kind": "card-velocity", "outcome": "SOMETIMES", "parameters": {"window": "1m"}, "colour": "red"}""")
                .put("/v1/rules/it-bad")
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors.field", hasItems("outcome", "colour"));
        given().contentType(ContentType.JSON).body("""
                        {"kind": "card-velocity", "outcome": "REVIEW", "parameters": {"window": "5m", "maxCount": "3"}}""")
                .put("/v1/rules/it-bad")
                .then().statusCode(400).body("errors[0].field", equalTo("parameters.window"));
        given().contentType(ContentType.JSON).body("""
                        {"kind": "telepathy", "outcome": "REVIEW"}""")
                .put("/v1/rules/it-bad")
                .then().statusCode(400).body("errors[0].field", equalTo("kind"));
        given().contentType(ContentType.JSON).body("{}").put("/v1/rules/Not_An_Id")
                .then().statusCode(400).body("errors[0].field", equalTo("ruleId"));
        get("/v1/rules/it-bad").then().statusCode(404);
        org.assertj.core.api.Assertions.assertThat(ruleSetVersion()).isEqualTo(before);
    }

    /**
     * The serving projections, which hold the rules' history, do not run inside @QuarkusTest (see
     * application.properties, streamhouse.serving.enabled): here the route must say so (503), and the audit events the
     * PUTs wrote, read back off the broker, must fold into the history the route would answer.
     */
    @Test
    void everyVersionWrittenIsInTheAuditTrailWithWhoChangedIt() {
        // As test-staff (rules_admin, reviewer): changedBy is the token's subject.
        RequestLog.awaitReady();
        given().contentType(ContentType.JSON).body("""
                        {"kind": "amount-threshold", "outcome": "REVIEW", "description": "first cut",
                         "parameters": {"threshold": "1000.00", "currency": "EUR"}, "expectedVersion": 0}""")
                .put("/v1/rules/it-history").then().statusCode(202);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                get("/v1/rules/it-history").then().statusCode(200).body("version", equalTo(1)));
        given().contentType(ContentType.JSON).body("""
                        {"kind": "amount-threshold", "outcome": "BLOCK", "weight": 2.5, "enabled": false,
                         "parameters": {"threshold": "500.00", "currency": "EUR"}, "expectedVersion": 1}""")
                .put("/v1/rules/it-history").then().statusCode(202);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                get("/v1/rules/it-history").then().statusCode(200).body("version", equalTo(2)));

        Map<String, io.streamhouse.domain.state.RuleHistory> histories = new java.util.HashMap<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            foldAuditTrail(histories);
            var h = histories.get("it-history");
            return h != null && h.getVersions().size() == 2 && histories.containsKey("large-amount-review");
        });
        var view = io.streamhouse.api.rules.RuleVersionsView.of("it-history", null, histories.get("it-history"), null);
        org.assertj.core.api.Assertions.assertThat(view.versions()).extracting(v -> v.version() + " " + v.changedBy() + " "
                        + v.channel() + " " + v.outcome() + " " + v.enabled() + " " + v.weight() + " " + v.parameters()
                        + " " + v.description() + " " + v.truncated() + " " + v.changedByRoles())
                .containsExactly(
                        "2 test-staff http BLOCK false 2.5 {currency=EUR, threshold=500.00} null [] [reviewer, rules-admin]",
                        "1 test-staff http REVIEW true 1.0 {currency=EUR, threshold=1000.00} first cut [] [reviewer, rules-admin]");
        // The built-in rules are audited as written by the system when first published.
        org.assertj.core.api.Assertions.assertThat(histories.get("large-amount-review").getVersions())
                .filteredOn(v -> v.getVersion() == 1).extracting(v -> v.getChangedBy() + " " + v.getChannel())
                .containsExactly("system:rules-bootstrap bootstrap");

        get("/v1/rules/it-history/versions").then().statusCode(503).contentType("application/problem+json")
                .header("Retry-After", "1");
        get("/v1/rules/Not_An_Id/versions").then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("ruleId"));
    }

    /** Every rule's history as the serving app folds it, from the whole audit topic. */
    private static void foldAuditTrail(Map<String, io.streamhouse.domain.state.RuleHistory> histories) {
        histories.clear();
        var deserializer = new io.streamhouse.domain.wire.RegistryTopicSerdes(new io.streamhouse.domain.wire.CachingSchemaRegistryClient(
                io.streamhouse.platform.SharedPlatform.get().schemaRegistryUrl().toString())).valueSerde(io.streamhouse.domain.topic.Topics.AUDIT_EVENTS).deserializer();
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(Map.<String, Object>of(
                org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                io.streamhouse.platform.SharedPlatform.get().bootstrapServers()),
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(io.streamhouse.domain.topic.Topics.AUDIT_EVENTS.name()).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    var event = deserializer.deserialize(r.topic(), r.value());
                    if (io.streamhouse.projections.serving.RuleHistories.isWrittenVersion(event)) {
                        histories.put(event.getResource(), io.streamhouse.projections.serving.RuleHistories.fold(
                                histories.get(event.getResource()), event.getResource(), event));
                    }
                }
            }
        }
    }
}
