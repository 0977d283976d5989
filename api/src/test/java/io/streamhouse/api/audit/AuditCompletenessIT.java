package io.streamhouse.api.audit;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.AuditEvents;
import io.streamhouse.security.testing.TestTokens;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Audit completeness (issue #19): each audited action of the api performed once — a rule change (accepted and
 * refused), a decision read and an explanation, a snapshot query, MCP tool calls (a plain one, a review outcome, a
 * decision read, a denied one), and a denied request of each kind (401 without and with a bad token, 403 on a JAX-RS
 * method and on a path, 429) — leaves exactly one event on audit.events naming who, what, the resource and the
 * outcome; and no event on the topic carries a card number or a token.
 */
@QuarkusTest
class AuditCompletenessIT {
    private static final String RUN = Long.toString(System.nanoTime(), 36);
    private static final String PAN = "4111111111111111";

    @TestHTTPResource("/")
    URL root;

    record Expected(String subject, AuditAction action, String resource, AuditOutcome outcome, Integer status, String channel) {
        boolean matches(AuditEvent e) {
            return e.getSubject().equals(subject) && e.getAction() == action && e.getResource().equals(resource);
        }
    }

    static RequestSpecification asToken(String token) {
        return given().header("Authorization", TestTokens.bearer(token)).contentType(ContentType.JSON);
    }

    static AuditOutcome outcomeOf(int status) {
        return status < 400 ? AuditOutcome.SUCCESS : AuditOutcome.FAILURE;
    }

    @Test
    void everyAuditedActionLeavesExactlyOneEvent() {
        Instant start = Instant.now();
        String admin = "test-audit-admin-" + RUN;
        String reviewer = "test-audit-reviewer-" + RUN;
        String analyst = "test-audit-analyst-" + RUN;
        String agent = "test-audit-agent-" + RUN;
        String wrong = "test-audit-payments-" + RUN;
        String throttled = "test-audit-throttled";
        List<String> tokens = new ArrayList<>();
        List<Expected> expected = new ArrayList<>();

        String adminToken = TestTokens.of(admin, Roles.RULES_ADMIN);
        tokens.add(adminToken);
        String rule = "audit-" + RUN;
        asToken(adminToken).body("""
                {"kind": "merchant-category", "outcome": "REVIEW", "parameters": {"mccs": "7995"}}""")
                .put("/v1/rules/" + rule).then().statusCode(202);
        expected.add(new Expected(admin, AuditAction.RULE_CHANGED, rule, AuditOutcome.SUCCESS, 202, "http"));
        asToken(adminToken).body("{\"kind\": \"no-such-kind\", \"outcome\": \"BLOCK\"}")
                .put("/v1/rules/" + rule + "-bad").then().statusCode(400);
        expected.add(new Expected(admin, AuditAction.RULE_CHANGED, rule + "-bad", AuditOutcome.FAILURE, 400, "http"));

        String reviewerToken = TestTokens.of(reviewer, Roles.REVIEWER);
        tokens.add(reviewerToken);
        asToken(reviewerToken).get("/v1/transactions/audit-tx-" + RUN + "/decision").then().statusCode(404);
        expected.add(new Expected(reviewer, AuditAction.DECISION_READ, "audit-tx-" + RUN, AuditOutcome.FAILURE, 404, "http"));
        asToken(reviewerToken).get("/v1/transactions/audit-tx2-" + RUN + "/explanation").then().statusCode(404);
        expected.add(new Expected(reviewer, AuditAction.DECISION_READ, "audit-tx2-" + RUN, AuditOutcome.FAILURE, 404, "http"));

        String analystToken = TestTokens.of(analyst, Roles.ANALYST);
        tokens.add(analystToken);
        String sql = "SELECT * FROM lake.streamhouse.audit_events WHERE resource = '" + PAN + "' AND run = '" + RUN + "'";
        int sqlStatus = asToken(analystToken).body(Map.of("sql", sql)).post("/v1/sql").then().extract().statusCode();
        expected.add(new Expected(analyst, AuditAction.SNAPSHOT_QUERIED, sql.replace(PAN, "[pan]"), outcomeOf(sqlStatus), sqlStatus, "http"));

        String agentToken = TestTokens.of(agent, Roles.AGENT);
        tokens.add(agentToken);
        try (McpSyncClient client = mcp(agentToken)) {
            assertThat(client.callTool(new McpSchema.CallToolRequest("recent_alerts", Map.of("limit", 5))).isError()).isNotNull();
            expected.add(new Expected(agent, AuditAction.MCP_TOOL_CALLED, "recent_alerts", null, null, "mcp"));
            var review = client.callTool(new McpSchema.CallToolRequest("record_review_outcome", Map.of(
                    "transactionId", "audit-review-" + RUN, "outcome", "LEGITIMATE", "reviewer", "agent-7",
                    "note", "card " + PAN + " looked fine")));
            assertThat(review.isError()).as("no such transaction: refused").isTrue();
            expected.add(new Expected(agent, AuditAction.REVIEW_OUTCOME_RECORDED, "audit-review-" + RUN, AuditOutcome.FAILURE, null, "mcp"));
            client.callTool(new McpSchema.CallToolRequest("why_blocked", Map.of("transactionId", "audit-why-" + RUN)));
            expected.add(new Expected(agent, AuditAction.DECISION_READ, "audit-why-" + RUN, AuditOutcome.FAILURE, null, "mcp"));
        }
        try (McpSyncClient client = mcp(reviewerToken)) {
            try {
                client.callTool(new McpSchema.CallToolRequest("where_is_parcel", Map.of("parcelId", "P-audit-" + RUN)));
            } catch (RuntimeException refused) {
                // refused as an MCP error: what is checked is the audit event
            }
            expected.add(new Expected(reviewer, AuditAction.MCP_TOOL_CALLED, "where_is_parcel", AuditOutcome.DENIED, null, "mcp"));
        }

        given().get("/v1/rules/audit-401-" + RUN).then().statusCode(401);
        expected.add(new Expected("anonymous", AuditAction.REQUEST_DENIED, "GET /v1/rules/audit-401-" + RUN, AuditOutcome.DENIED, 401, "http"));
        String forged = TestTokens.forged(Roles.RULES_ADMIN);
        tokens.add(forged);
        asToken(forged).get("/v1/rules/audit-401b-" + RUN).then().statusCode(401);
        expected.add(new Expected("anonymous", AuditAction.REQUEST_DENIED, "GET /v1/rules/audit-401b-" + RUN, AuditOutcome.DENIED, 401, "http"));
        String wrongToken = TestTokens.of(wrong, Roles.PAYMENTS);
        tokens.add(wrongToken);
        asToken(wrongToken).body("{}").put("/v1/rules/audit-403-" + RUN).then().statusCode(403);
        expected.add(new Expected(wrong, AuditAction.REQUEST_DENIED, "PUT /v1/rules/audit-403-" + RUN, AuditOutcome.DENIED, 403, "http"));
        asToken(wrongToken).get("/q/metrics").then().statusCode(403);
        expected.add(new Expected(wrong, AuditAction.REQUEST_DENIED, "GET /q/metrics", AuditOutcome.DENIED, 403, "http"));
        String throttledToken = TestTokens.of(throttled, Roles.REVIEWER);
        tokens.add(throttledToken);
        asToken(throttledToken).get("/v1/rules").then().statusCode(200);
        asToken(throttledToken).get("/v1/rules/audit-429-" + RUN).then().statusCode(429);
        expected.add(new Expected(throttled, AuditAction.REQUEST_DENIED, "GET /v1/rules/audit-429-" + RUN, AuditOutcome.DENIED, 429, "http"));

        Set<String> subjects = Set.of(admin, reviewer, analyst, agent, wrong, throttled);
        List<AuditEvent> all = AuditEvents.readUntil(SharedPlatform.get().bootstrapServers(),
                SharedPlatform.get().schemaRegistryUrl().toString(),
                read -> expected.stream().allMatch(x -> read.stream().anyMatch(x::matches)), Duration.ofSeconds(30));
        List<AuditEvent> ours = all.stream().filter(e -> subjects.contains(e.getSubject().toString())
                || e.getResource().contains(RUN)).toList();

        for (Expected x : expected) {
            List<AuditEvent> found = ours.stream().filter(x::matches).toList();
            assertThat(found).as("events for %s", x).hasSize(1);
            AuditEvent e = found.get(0);
            if (x.outcome() != null) {
                assertThat(e.getOutcome()).as("outcome of %s", x).isEqualTo(x.outcome());
            }
            assertThat(e.getStatus()).as("status of %s", x).isEqualTo(x.status());
            assertThat(e.getChannel()).as("channel of %s", x).isEqualTo(x.channel());
            assertThat(e.getService()).isEqualTo("streamhouse-api");
            assertThat(e.getInstance()).isNotBlank();
            assertThat(e.getEnvelope().getOccurredAt()).isAfterOrEqualTo(start.minusSeconds(1));
            assertThat(e.getEnvelope().getKey()).isEqualTo(x.subject().equals("anonymous")
                    ? "anonymous@" + e.getClientAddress() : x.subject());
            if (x.channel().equals("http")) {
                assertThat(e.getClientAddress()).as("client address of %s", x).isNotBlank();
            }
            if (x.outcome() == AuditOutcome.DENIED || x.outcome() == AuditOutcome.FAILURE) {
                assertThat(e.getReason()).as("reason of %s", x).isNotBlank();
            }
        }
        assertThat(ours).as("no audit event besides the expected ones: %s", ours).hasSize(expected.size());
        assertThat(ours.stream().filter(e -> e.getSubject().equals(admin)).findFirst().orElseThrow().getRoles())
                .containsExactly(Roles.RULES_ADMIN);

        asToken(TestTokens.forRole(Roles.OPS)).get("/q/metrics").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("streamhouse_audit_events_lost 0.0"));

        for (AuditEvent e : all) {
            String text = e.toString();
            assertThat(text).as("an audit event with a card number: %s", text).doesNotContain(PAN).doesNotContainPattern("[0-9]{13,19}");
            for (String token : tokens) {
                assertThat(text).as("an audit event with a token").doesNotContain(token);
            }
        }
    }

    private McpSyncClient mcp(String token) {
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(root.toString()).endpoint("/mcp")
                        .httpRequestCustomizer((request, method, uri, body, context) -> request.header("Authorization", TestTokens.bearer(token)))
                        .build())
                .requestTimeout(Duration.ofSeconds(30))
                .clientInfo(new McpSchema.Implementation("streamhouse-audit-test", "1"))
                .build();
        client.initialize();
        return client;
    }
}
