package io.streamhouse.api;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * Who may call the api and its MCP server: 401 without a token (with the pointer to the protected resource metadata),
 * 403 naming the role needed, object-level access to decisions, the open and closed /q paths, the rate limit, and
 * tools/list filtered by role.
 */
@QuarkusTest
class ApiAccessIT {
    @TestHTTPResource("/")
    URL root;

    static RequestSpecification as(String role) {
        return asToken(TestTokens.forRole(role));
    }

    static RequestSpecification asToken(String token) {
        return given().header("Authorization", TestTokens.bearer(token)).contentType(ContentType.JSON);
    }

    @Test
    void withoutATokenEveryKindOfPathIs401PointingAtTheResourceMetadata() {
        for (String path : List.of("/v1/rules", "/v1/transactions/t-1/decision", "/v1/parcels/P-1", "/internal/v1/ping",
                "/q/metrics", "/q/openapi", "/q/health", "/mcp/sse")) {
            given().get(path).then().statusCode(401).contentType("application/problem+json")
                    .header("WWW-Authenticate", containsString("resource_metadata=\""))
                    .header("WWW-Authenticate", containsString("/.well-known/oauth-protected-resource\""));
        }
        given().contentType(ContentType.JSON).body("{}").post("/mcp").then().statusCode(401).contentType("application/problem+json");
        given().contentType(ContentType.JSON).body("{}").put("/v1/rules/very-large-amount-block").then().statusCode(401);
        given().contentType(ContentType.JSON).body("{}").post("/v1/sql").then().statusCode(401);
    }

    @Test
    void expiredForgedAndMalformedTokensAre401AndNeverEchoed() {
        for (String token : List.of(TestTokens.expired(Roles.REVIEWER), TestTokens.forged(Roles.REVIEWER), "not.a-token")) {
            asToken(token).get("/v1/rules").then()
                    .statusCode(401).contentType("application/problem+json")
                    .header("WWW-Authenticate", containsString("invalid_token"))
                    .body(not(containsString(token)));
            asToken(token).body("{}").post("/mcp").then().statusCode(401).body(not(containsString(token)));
        }
    }

    @Test
    void theProtectedResourceMetadataIsOpenAndNamesTheMcpResource() {
        given().get("/.well-known/oauth-protected-resource").then().statusCode(200)
                .body("resource", endsWith("/mcp")).body("bearer_methods_supported", equalTo(List.of("header")));
        given().get("/.well-known/oauth-protected-resource/mcp").then().statusCode(200).body("resource", endsWith("/mcp"));
    }

    @Test
    void aWrongRoleIs403NamingTheRoleNeeded() {
        as(Roles.REVIEWER).body("{}").put("/v1/rules/very-large-amount-block").then()
                .statusCode(403).contentType("application/problem+json").body("detail", containsString("the role rules-admin"));
        as(Roles.PAYMENTS).body("{}").post("/v1/sql").then()
                .statusCode(403).contentType("application/problem+json").body("detail", containsString("the role analyst"));
        as(Roles.PAYMENTS).get("/v1/rules").then().statusCode(403)
                .body("detail", containsString("one of the roles rules-admin, reviewer"));
        as(Roles.PAYMENTS).get("/v1/customers/c-1").then().statusCode(403).body("detail", containsString("the role reviewer"));
        as(Roles.DEVICE).get("/v1/transactions/t-1/decision").then().statusCode(403);
        as(Roles.PAYMENTS).get("/v1/decisions").then().statusCode(403).body("detail", containsString("one of the roles reviewer, ops"));
        as(Roles.REVIEWER).get("/internal/v1/ping").then()
                .statusCode(403).contentType("application/problem+json").body("detail", containsString("the role internal"));
        as(Roles.AGENT).get("/q/metrics").then()
                .statusCode(403).contentType("application/problem+json").body("detail", containsString("the role ops"));
        as(Roles.PAYMENTS).body("{}").post("/mcp").then()
                .statusCode(403).contentType("application/problem+json").body("detail", containsString("agent, reviewer, ops, analyst"));
    }

    @Test
    void theRightRoleGetsIn() {
        as(Roles.RULES_ADMIN).get("/v1/rules").then().statusCode(200);
        as(Roles.REVIEWER).get("/v1/rules").then().statusCode(200);
        as(Roles.INTERNAL).get("/internal/v1/ping").then().statusCode(not(anyOf(is(401), is(403))));
        as(Roles.OPS).get("/q/metrics").then().statusCode(200);
        as(Roles.OPS).get("/q/openapi").then().statusCode(200);
        // Serving is off in @QuarkusTests: 503 (not 401/403) shows the request passed access control.
        as(Roles.OPS).get("/v1/parcels/P-1").then().statusCode(503);
        as(Roles.REVIEWER).get("/v1/customers/c-1").then().statusCode(503);
        as(Roles.OPS).get("/v1/decisions").then().statusCode(503);
        as(Roles.REVIEWER).get("/v1/decisions?limit=5").then().statusCode(503);
        // The malformed body is refused by the endpoint itself, after access control.
        as(Roles.ANALYST).body("{}").post("/v1/sql").then().statusCode(anyOf(is(400), is(422), is(503)));
    }

    /** The console's files are open and hold no data; the page may only load script and connect to this origin. */
    @Test
    void theConsolesStaticFilesAreOpenUnderAStrictContentSecurityPolicy() {
        given().get("/console/").then().statusCode(200).contentType(containsString("text/html"))
                .header("Content-Security-Policy", containsString("script-src 'self'"))
                .header("Content-Security-Policy", containsString("connect-src 'self'"))
                .body(containsString("console.js"));
        given().get("/console/console.js").then().statusCode(200).body(containsString("/v1/alerts/stream"));
        // Only the console's own files: an unknown path under it is a plain 404, and the API behind it still needs a token.
        given().get("/console/nothing-here.js").then().statusCode(404);
        given().get("/v1/alerts").then().statusCode(401);
    }

    @Test
    void livenessAndReadinessAreOpen() {
        given().get("/q/health/live").then().statusCode(200);
        given().get("/q/health/ready").then().statusCode(anyOf(is(200), is(503)));
    }

    @Test
    void aPaymentsClientReadsItsOwnDecisionsAndNoOneElses() throws Exception {
        var request = SampleEvents.transaction("access-own-1", "tok_access_card_1", "20", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
        request.setSubmittedBy("test-payments");
        RequestLog.send(request);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                as(Roles.REVIEWER).get("/v1/transactions/access-own-1/decision").then().statusCode(200));

        as(Roles.PAYMENTS).get("/v1/transactions/access-own-1/decision").then().statusCode(200)
                .body("transactionId", equalTo("access-own-1"));
        as(Roles.PAYMENTS).get("/v1/transactions/access-own-1/explanation").then().statusCode(200);
        String otherClient = TestTokens.of("test-payments-other", Roles.PAYMENTS);
        // As if it did not exist: another client cannot tell a foreign transaction id from an unknown one.
        asToken(otherClient).get("/v1/transactions/access-own-1/decision").then()
                .statusCode(404).contentType("application/problem+json");
        asToken(otherClient).get("/v1/transactions/access-own-1/explanation").then().statusCode(404);
    }

    @Test
    void aCallerOverItsRateLimitGets429AndOthersDoNot() {
        // test-throttled has a bucket of 3 that refills once in 1000 s (application.properties, %test).
        String throttled = TestTokens.of("test-throttled", Roles.REVIEWER);
        for (int i = 0; i < 3; i++) {
            asToken(throttled).get("/v1/rules").then().statusCode(200);
        }
        asToken(throttled).get("/v1/rules").then()
                .statusCode(429).contentType("application/problem+json").header("Retry-After", equalTo("1000"));
        as(Roles.REVIEWER).get("/v1/rules").then().statusCode(200);
    }

    @Test
    void toolsListShowsEachRoleOnlyTheToolsItMayCall() {
        assertThat(tools(Roles.AGENT)).containsExactlyInAnyOrder("listTopics", "getMetadata", "queryData", "why_blocked",
                "where_is_parcel", "customer_state", "vehicle_health", "recent_alerts", "record_review_outcome", "snapshot_query");
        assertThat(tools(Roles.ANALYST)).containsExactlyInAnyOrder("snapshot_query");
        assertThat(tools(Roles.REVIEWER)).containsExactlyInAnyOrder("why_blocked", "record_review_outcome");
        assertThat(tools(Roles.OPS)).containsExactlyInAnyOrder("listTopics", "getMetadata");
    }

    @Test
    void aHiddenToolCannotBeCalledEither() {
        try (McpSyncClient client = mcp(Roles.REVIEWER)) {
            McpSchema.CallToolResult result;
            try {
                result = client.callTool(new McpSchema.CallToolRequest("listTopics", Map.of()));
            } catch (RuntimeException refused) {
                assertThat(refused.getMessage()).isNotBlank();
                return;
            }
            assertThat(result.isError()).as("listTopics as a reviewer: %s", result.content()).isTrue();
        }
    }

    private Set<String> tools(String role) {
        try (McpSyncClient client = mcp(role)) {
            return client.listTools().tools().stream().map(McpSchema.Tool::name).collect(Collectors.toSet());
        }
    }

    private McpSyncClient mcp(String role) {
        String token = TestTokens.forRole(role);
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(root.toString()).endpoint("/mcp")
                        .httpRequestCustomizer((request, method, uri, body, context) -> request.header("Authorization", TestTokens.bearer(token)))
                        .build())
                .requestTimeout(Duration.ofSeconds(30)).build();
        client.initialize();
        return client;
    }
}
