package io.streamhouse.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.streamhouse.api.serving.Answer;
import io.streamhouse.api.serving.ProjectionQueries;
import io.streamhouse.api.serving.Views;
import io.streamhouse.domain.pii.PanScanner;
import io.streamhouse.domain.pii.TopicPanScan;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Personal data on the api's side (docs/pii.md): a customer's contact fields per role, on REST and MCP
 * (the serving Streams app is off in @QuarkusTest, so a stand-in {@link ProjectionQueries} answers, installed for
 * one test at a time); and card numbers planted through every api entry point — rule changes, lookups, decision
 * reads, MCP tools, snapshot SQL — then looked for in every answer, every record of every topic on the shared test
 * broker and the app's log file.
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class PiiServingIT {
    static final Path LOG_FILE = Path.of("target/quarkus-test.log");
    static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL root;

    /** Answers every customer lookup with Ada, whatever the id. */
    static final class OneCustomer extends ProjectionQueries {
        OneCustomer() {
            super(() -> null, Clock.systemUTC());
        }

        @Override
        public Answer<Views.CustomerView> customer(String customerId, Instant asOf) {
            return new Answer.Ok<>(io.streamhouse.api.security.CustomerContactsTest.ADA);
        }
    }

    McpSyncClient mcp(String subject, String... roles) {
        var client = McpClient.sync(HttpClientStreamableHttpTransport.builder(root.toString()).endpoint("/mcp")
                        .httpRequestCustomizer((request, method, uri, body, context) -> request.header("Authorization",
                                TestTokens.bearer(TestTokens.of(subject, roles))))
                        .build())
                .requestTimeout(Duration.ofSeconds(30))
                .clientInfo(new McpSchema.Implementation("streamhouse-pii-test", "1"))
                .build();
        client.initialize();
        return client;
    }

    static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    @Test
    void aReviewerSeesContactFieldsAndAnAgentSeesThemMasked() throws Exception {
        QuarkusMock.installMockForType(new OneCustomer(), ProjectionQueries.class);

        given().auth().oauth2(TestTokens.of("test-pii-reviewer", Roles.REVIEWER)).get("/v1/customers/c-1").then().statusCode(200)
                .body("email", org.hamcrest.Matchers.equalTo("ada.lovelace@example.com"))
                .body("fullName", org.hamcrest.Matchers.equalTo("Ada King Lovelace"));
        given().auth().oauth2(TestTokens.of("test-pii-ops", Roles.OPS)).get("/v1/customers/c-1").then().statusCode(403);

        var agent = mcp("test-pii-agent", Roles.AGENT);
        try {
            for (var call : List.of(new McpSchema.CallToolRequest("customer_state", Map.of("customerId", "c-1")),
                    new McpSchema.CallToolRequest("queryData", Map.of("store", "customer-state", "key", "c-1")))) {
                var result = agent.callTool(call);
                assertThat(result.isError()).as(call.name() + " " + result.content()).isFalse();
                String answer = text(result);
                JsonNode customer = JSON.readTree(answer);
                JsonNode view = customer.has("email") ? customer : customer.path("value");
                assertThat(answer).as(call.name()).doesNotContain("ada.lovelace").doesNotContain("Lovelace");
                assertThat(view.path("email").asText()).as(call.name() + " " + answer).isEqualTo("a***@example.com");
                assertThat(view.path("fullName").asText()).as(call.name()).isEqualTo("A. K. L.");
            }
            for (String sql : List.of("SELECT email FROM kafka.streamhouse.shop_customers",
                    "select * from lake.streamhouse.\"SHOP_ORDERS\"", "SELECT 1 FROM kafka.streamhouse.shop_cdc_changes")) {
                var refused = agent.callTool(new McpSchema.CallToolRequest("snapshot_query", Map.of("sql", sql)));
                assertThat(refused.isError()).as(sql).isTrue();
                assertThat(text(refused)).as(sql).contains("contact data");
            }
        } finally {
            agent.closeGracefully();
        }
    }

    @Test
    void noPlantedCardNumberIsInClearOnAnyTopicAnswerOrLogLine() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<String> planted = new ArrayList<>();
        int[] serial = {1};
        java.util.function.Supplier<String> pan = () -> {
            String body = "5" + String.format("%06d", Math.floorMod(run.hashCode(), 1_000_000)) + String.format("%08d", serial[0]++);
            for (int check = 0; ; check++) {
                if (PanScanner.luhnValid(body + check)) {
                    planted.add(body + check);
                    return body + check;
                }
            }
        };
        List<String> answers = new ArrayList<>();
        java.util.function.Consumer<Response> keep = r -> answers.add(r.statusCode() + " " + r.headers() + " " + r.asString());

        String admin = TestTokens.of("test-pii-admin", Roles.RULES_ADMIN);
        String rule = "pii-rule-" + run;
        RequestLog.awaitReady();
        Response r = given().auth().oauth2(admin).contentType(ContentType.JSON).body("""
                {"kind": "amount-threshold", "outcome": "REVIEW", "enabled": false, "expectedVersion": 0,
                 "description": "card %s, also %s", "parameters": {"threshold": "999999.00", "currency": "EUR"}}"""
                .formatted(pan.get(), pan.get().replaceAll("(\\d{4})(?=\\d)", "$1 "))).put("/v1/rules/" + rule);
        keep.accept(r);
        keep.accept(given().auth().oauth2(admin).contentType(ContentType.JSON).body("""
                {"kind": "amount-threshold", "outcome": "REVIEW", "parameters": {"threshold": "%s", "currency": "%s"}}"""
                .formatted(pan.get(), pan.get())).put("/v1/rules/" + rule + "-p"));
        given().auth().oauth2(admin).contentType(ContentType.JSON).body("{\"kind\": \"amount-threshold\"}")
                .put("/v1/rules/" + pan.get()).then().statusCode(400);
        keep.accept(given().auth().oauth2(admin).contentType(ContentType.JSON).body("{\"kind\": \"amount-threshold\"}")
                .put("/v1/rules/" + pan.get()));
        keep.accept(given().auth().oauth2(admin).contentType(ContentType.JSON)
                .body("{\"" + pan.get() + "\": 1, \"kind\": \"x\", \"outcome\": \"" + pan.get() + "\"}").put("/v1/rules/" + rule + "-b"));
        keep.accept(given().auth().oauth2(admin).contentType(ContentType.JSON).body("{\"kind\": " + pan.get()).put("/v1/rules/" + rule + "-c"));
        String staff = TestTokens.of("test-pii-staff", Roles.REVIEWER, Roles.OPS);
        for (String path : List.of("/v1/customers/%s", "/v1/parcels/%s", "/v1/vehicles/%s", "/v1/transactions/%s/decision",
                "/v1/transactions/%s/explanation", "/v1/customers/c-1?asOf=%s", "/v1/alerts?before=%s", "/v1/alerts?limit=%s")) {
            keep.accept(given().auth().oauth2(staff).get(path.formatted(pan.get())));
        }
        keep.accept(given().auth().oauth2(TestTokens.of("test-pii-payments", Roles.PAYMENTS)).get("/v1/transactions/" + pan.get() + "/decision"));
        keep.accept(given().auth().oauth2(TestTokens.of("test-pii-analyst", Roles.ANALYST)).contentType(ContentType.JSON)
                .body("{\"sql\": \"SELECT * FROM streamhouse.decisions WHERE card = '" + pan.get() + "'\", \"" + pan.get() + "\": 1}")
                .post("/v1/sql"));

        var agent = mcp("test-pii-agent", Roles.AGENT);
        try {
            for (var call : List.of(
                    new McpSchema.CallToolRequest("why_blocked", Map.of("transactionId", pan.get())),
                    new McpSchema.CallToolRequest("record_review_outcome", Map.of("transactionId", pan.get(), "outcome", "APPROVE",
                            "reviewer", "agent " + pan.get(), "note", "card " + pan.get())),
                    new McpSchema.CallToolRequest("customer_state", Map.of("customerId", pan.get())),
                    new McpSchema.CallToolRequest("where_is_parcel", Map.of("parcelId", pan.get())),
                    new McpSchema.CallToolRequest("queryData", Map.of("store", pan.get(), "key", pan.get())),
                    new McpSchema.CallToolRequest("getMetadata", Map.of("name", pan.get())),
                    new McpSchema.CallToolRequest("snapshot_query", Map.of("sql", "SELECT '" + pan.get() + "'")))) {
                answers.add(String.valueOf(agent.callTool(call).content()));
            }
        } finally {
            agent.closeGracefully();
        }

        var scanner = new PanScanner();
        answers.forEach(a -> scanner.scan("answer", a));
        long records = TopicPanScan.everyRecord(scanner, SharedPlatform.get().bootstrapServers());
        assertThat(Files.exists(LOG_FILE)).as(LOG_FILE.toAbsolutePath().toString()).isTrue();
        String log = Files.readString(LOG_FILE, StandardCharsets.ISO_8859_1);
        scanner.scan("log " + LOG_FILE, log);

        assertThat(r.statusCode()).as("the rule with card numbers in its texts: " + r.asString()).isEqualTo(202);
        assertThat(planted).hasSizeGreaterThan(20);
        assertThat(scanner.hits()).as("Luhn-valid digit runs in %d texts (%d topic records, %d answers, a %d-character log)",
                scanner.scannedTexts(), records, answers.size(), log.length()).isEmpty();
        for (String p : planted) {
            assertThat(String.join("\n", answers)).doesNotContain(p);
            assertThat(log).doesNotContain(p);
        }
    }
}
