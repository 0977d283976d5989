package io.streamhouse.ingest.security;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.streamhouse.security.Roles;
import io.streamhouse.security.http.CachingJwtParser;
import jakarta.inject.Inject;
import io.streamhouse.security.testing.TestTokens;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

/**
 * Who may call ingest: each endpoint without a token (401), with a wrong role (403 naming the role), with the right
 * one; bad tokens never echoed; the open health paths; the per-caller rate limit.
 */
@QuarkusTest
class IngestAccessIT {
    record Endpoint(String path, String role) {
    }

    static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint("/v1/transactions", Roles.PAYMENTS),
            new Endpoint("/v1/transactions/authorize", Roles.PAYMENTS),
            new Endpoint("/v1/telemetry", Roles.DEVICE),
            new Endpoint("/v1/parcels/P-1/scans", Roles.DEVICE));

    static RequestSpecification as(String token) {
        return given().header("Authorization", TestTokens.bearer(token)).contentType(ContentType.JSON);
    }

    @Test
    void everyEndpointWithoutATokenIs401ProblemWithABearerChallenge() {
        for (Endpoint e : ENDPOINTS) {
            given().contentType(ContentType.JSON).body("{}").post(e.path()).then()
                    .statusCode(401).contentType("application/problem+json")
                    .header("WWW-Authenticate", startsWith("Bearer"))
                    .body("status", equalTo(401)).body("detail", containsString("bearer token"));
        }
    }

    @Test
    void expiredForgedAndMalformedTokensAre401AndNeverEchoed() {
        String expired = TestTokens.expired(Roles.PAYMENTS);
        String forged = TestTokens.forged(Roles.PAYMENTS);
        String malformed = "not.a-token";
        for (String token : List.of(expired, forged, malformed)) {
            as(token).body("{}").post("/v1/transactions").then()
                    .statusCode(401).contentType("application/problem+json")
                    .header("WWW-Authenticate", containsString("invalid_token"))
                    .body(not(containsString(token)));
        }
    }

    @Inject
    JWTParser parser;

    /**
     * A verified token is remembered (its signature is not checked again for each request), which must not let a
     * token with the same header and claims but another signature through.
     */
    @Test
    void aVerifiedTokenIsRememberedAndACopyWithAnotherSignatureIsStill401() {
        String token = TestTokens.forRole(Roles.PAYMENTS);
        as(token).body("{}").post("/v1/transactions").then().statusCode(422);
        assertThat(parser).isInstanceOf(CachingJwtParser.class);
        assertThat(((CachingJwtParser) parser).remembers(token)).isTrue();

        int signature = token.lastIndexOf('.') + 1;
        String resigned = token.substring(0, signature) + (token.charAt(signature) == 'A' ? 'B' : 'A') + token.substring(signature + 1);
        as(resigned).body("{}").post("/v1/transactions").then()
                .statusCode(401).header("WWW-Authenticate", containsString("invalid_token"));
        as(token).body("{}").post("/v1/transactions").then().statusCode(422);
    }

    @Test
    void aWrongRoleIs403NamingTheRoleNeeded() {
        for (Endpoint e : ENDPOINTS) {
            String wrong = e.role().equals(Roles.PAYMENTS) ? Roles.DEVICE : Roles.PAYMENTS;
            as(TestTokens.forRole(wrong)).body("{}").post(e.path()).then()
                    .statusCode(403).contentType("application/problem+json")
                    .body("detail", containsString("the role " + e.role()));
        }
        for (String role : List.of(Roles.REVIEWER, Roles.RULES_ADMIN, Roles.ANALYST, Roles.AGENT, Roles.OPS, Roles.INTERNAL)) {
            as(TestTokens.forRole(role)).body("{}").post("/v1/transactions").then().statusCode(403);
        }
    }

    @Test
    void theRightRoleGetsThroughToValidation() {
        for (Endpoint e : ENDPOINTS) {
            // An empty object is invalid: 422 naming the fields shows the request passed access control.
            as(TestTokens.forRole(e.role())).body("{}").post(e.path()).then()
                    .statusCode(422).contentType("application/problem+json");
        }
    }

    @Test
    void livenessAndReadinessAreOpenTheRestOfQNeedsOps() {
        given().get("/q/health/live").then().statusCode(200);
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health").then().statusCode(401).contentType("application/problem+json");
        as(TestTokens.forRole(Roles.PAYMENTS)).get("/q/health").then()
                .statusCode(403).contentType("application/problem+json").body("detail", containsString("the role ops"));
        as(TestTokens.forRole(Roles.OPS)).get("/q/health").then().statusCode(200);
    }

    @Test
    void aCallerOverItsRateLimitGets429AndOthersDoNot() {
        // test-throttled has a bucket of 3 that refills once in 1000 s (application.properties, %test).
        String throttled = TestTokens.of("test-throttled", Roles.PAYMENTS);
        for (int i = 0; i < 3; i++) {
            as(throttled).body("{}").post("/v1/transactions").then().statusCode(422);
        }
        as(throttled).body("{}").post("/v1/transactions").then()
                .statusCode(429).contentType("application/problem+json").header("Retry-After", equalTo("1000"));
        as(TestTokens.forRole(Roles.PAYMENTS)).body("{}").post("/v1/transactions").then().statusCode(422);
    }
}
