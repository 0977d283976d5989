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

    @Test
    void everyVersionIsListedNewestFirstWithWhoChangedIt() {
        RequestLog.awaitReady();
        io.streamhouse.api.Callers.authenticateAs("it-history-admin", Roles.RULES_ADMIN);
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

        // Read by a reviewer, who did not write them.
        io.streamhouse.api.Callers.authenticateAs("it-history-reviewer", Roles.REVIEWER);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> get("/v1/rules/it-history/versions").then()
                .statusCode(200)
                .body("ruleId", equalTo("it-history"))
                .body("inForce", equalTo(2))
                .body("versions.version", contains(2, 1)));
        get("/v1/rules/it-history/versions").then().statusCode(200)
                .body("versions.changedBy", contains("it-history-admin", "it-history-admin"))
                .body("versions[0].changedByRoles", hasItem(Roles.RULES_ADMIN))
                .body("versions.channel", contains("http", "http"))
                .body("versions.inAuditTrail", contains(true, true))
                .body("versions.inForce", contains(true, false))
                .body("versions.outcome", contains("BLOCK", "REVIEW"))
                .body("versions.enabled", contains(false, true))
                .body("versions.weight", contains(2.5f, 1.0f))
                .body("versions.parameters.threshold", contains("500.00", "1000.00"))
                .body("versions.description", contains(null, "first cut"))
                .body("versions.truncated", contains(List.of(), List.of()))
                .body("versions[0].changedAt", not(equalTo(null)))
                .body("freshness.servedBy", not(equalTo(null)));

        // The built-in rules are audited as written by the system when first published.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> get("/v1/rules/large-amount-review/versions").then()
                .statusCode(200).body("versions.findAll { it.version == 1 }.changedBy", contains("system:rules-bootstrap"))
                .body("versions.findAll { it.version == 1 }.channel", contains("bootstrap")));

        get("/v1/rules/it-never-defined/versions").then().statusCode(404).contentType("application/problem+json");
        get("/v1/rules/Not_An_Id/versions").then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("ruleId"));
    }
}
