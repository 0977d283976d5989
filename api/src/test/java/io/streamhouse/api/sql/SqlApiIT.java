package io.streamhouse.api.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.get;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code POST /v1/sql} and the {@code snapshot_query} MCP tool against the real query service (its own JVM) on the
 * shared platform: a snapshot query over the decisions topic agrees with the decisions the projection serves.
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = LakeQueryTestResource.class, restrictToAnnotatedClass = true)
class SqlApiIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = "sqlapi-" + UUID.randomUUID().toString().substring(0, 8);

    @TestHTTPResource("/")
    URL root;

    /** SQL goes in as an analyst; the decisions it is compared with are read as a reviewer (analysts may not read them). */
    private static final String ANALYST = TestTokens.bearer(TestTokens.forRole(Roles.ANALYST));
    private static final String REVIEWER = TestTokens.bearer(TestTokens.forRole(Roles.REVIEWER));

    private static Response sql(String body) {
        return given().header("Authorization", ANALYST).contentType("application/json").body(body).post("/v1/sql");
    }

    private static Response decision(String path) {
        return given().header("Authorization", REVIEWER).get(path);
    }

    @Test
    void decisionsPerOutcomeOverTheLogAgreeWithTheProjection() throws Exception {
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> get("/q/health/ready").then().statusCode(200));
        List<TransactionAuthorizationRequested> requests = List.of(
                SampleEvents.transaction(RUN + "-1", "tok_" + RUN + "_1", "3", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0),
                SampleEvents.transaction(RUN + "-2", "tok_" + RUN + "_2", "4", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0),
                SampleEvents.transaction(RUN + "-3", "tok_" + RUN + "_3", "1500", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0));
        send(requests);
        Map<String, Long> served = new HashMap<>();
        for (TransactionAuthorizationRequested r : requests) {
            String path = "/v1/transactions/" + r.getTransactionId() + "/decision";
            await().atMost(Duration.ofSeconds(60)).until(() -> decision(path).statusCode() == 200);
            served.merge(decision(path).jsonPath().getString("outcome"), 1L, Long::sum);
        }

        Response answer = sql("{\"sql\": \"SELECT outcome, COUNT(*) FROM kafka.streamhouse.payments_transactions_decisions"
                + " WHERE transactionId LIKE '" + RUN + "-%' GROUP BY outcome\"}");
        assertThat(answer.statusCode()).as(answer.asString()).isEqualTo(200);
        JsonNode body = JSON.readTree(answer.asString());
        Map<String, Long> counted = new HashMap<>();
        body.get("rows").forEach(row -> counted.put(row.get(0).asText(), row.get(1).asLong()));
        assertThat(counted).isEqualTo(served);
        assertThat(served).containsKey("REVIEW"); // 1500 EUR is held for review: the comparison spans two outcomes
        assertThat(body.get("columns").get(0).get("name").asText()).isEqualTo("outcome");
        assertThat(body.get("readAt").get("kafka")).hasSize(Topics.TRANSACTION_DECISIONS.partitions());
    }

    @Test
    void statementsOtherThanQueriesAndBadFieldsAre400Problems() throws Exception {
        Response drop = sql("{\"sql\": \"DROP TABLE kafka.streamhouse.payments_transactions_decisions\"}");
        assertThat(drop.statusCode()).isEqualTo(400);
        assertThat(drop.contentType()).startsWith("application/problem+json");
        assertThat(drop.jsonPath().getString("detail")).contains("only a query");

        Response malformed = sql("{\"sql\": \"SELECT FROM WHERE\"}");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.jsonPath().getString("detail")).contains("SQL parse failed");

        Response missing = sql("{\"maxRows\": 5}");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.jsonPath().getString("errors[0].field")).isEqualTo("sql");

        Response cap = sql("{\"sql\": \"SELECT 1\", \"maxRows\": 0, \"extra\": true}");
        assertThat(cap.statusCode()).isEqualTo(400);
        assertThat(cap.jsonPath().getList("errors.field")).containsExactlyInAnyOrder("extra", "maxRows");
    }

    @Test
    void theSameQueryIsAnMcpTool() throws Exception {
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(root.toString()).endpoint("/mcp")
                .httpRequestCustomizer((request, method, uri, body, context) -> request.header("Authorization", TestTokens.bearer(
                        TestTokens.forRole(Roles.AGENT))))
                .build())
                .requestTimeout(Duration.ofSeconds(60)).clientInfo(new McpSchema.Implementation("streamhouse-test-agent", "1")).build();
        try {
            client.initialize();
            McpSchema.CallToolResult ok = client.callTool(new McpSchema.CallToolRequest("snapshot_query",
                    Map.of("sql", "SELECT x, x * 2 AS y FROM (VALUES (1), (2), (3)) AS t(x) ORDER BY x", "maxRows", 2)));
            assertThat(ok.isError()).as(ok.content().toString()).isFalse();
            JsonNode body = JSON.readTree(((McpSchema.TextContent) ok.content().get(0)).text());
            assertThat(body.get("rows").toString()).isEqualTo("[[1,2],[2,4]]");
            assertThat(body.get("truncated").asBoolean()).isTrue();

            McpSchema.CallToolResult refused = client.callTool(new McpSchema.CallToolRequest("snapshot_query",
                    Map.of("sql", "INSERT INTO kafka.streamhouse.rules_definitions SELECT * FROM kafka.streamhouse.rules_definitions")));
            assertThat(refused.isError()).isTrue();
            assertThat(((McpSchema.TextContent) refused.content().get(0)).text()).contains("(400)").contains("only a query");
        } finally {
            client.closeGracefully();
        }
    }

    private static void send(List<TransactionAuthorizationRequested> requests) throws Exception {
        var registry = new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString());
        var serializer = new AvroSerializer<>(registry, TransactionAuthorizationRequested.class, false);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            for (TransactionAuthorizationRequested r : requests) {
                producer.send(new ProducerRecord<>(Topics.TRANSACTION_REQUESTS.name(), r.getCardToken(),
                        serializer.serialize(Topics.TRANSACTION_REQUESTS.name(), r))).get();
            }
        }
    }
}
