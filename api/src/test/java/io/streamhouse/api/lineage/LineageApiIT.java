package io.streamhouse.api.lineage;

import io.openlineage.client.OpenLineageClientUtils;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.lineage.JobLineage;
import io.streamhouse.lineage.LineageGraph;
import jakarta.inject.Inject;
import io.restassured.path.json.JsonPath;
import io.streamhouse.api.EventLog;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code GET /v1/lineage} against the shared test broker: the decision app this test boots has written its START to
 * {@code lineage.events}, and the graph shows it reading and writing its topics in the broker's namespace. (The
 * serving app is off in @QuarkusTests; LineageOfTheAppsTest checks its events and both graphs against the topologies.)
 */
@QuarkusTest
class LineageApiIT {
    static final String OPS = TestTokens.bearer(TestTokens.of("test-lineage-ops", Roles.OPS));

    /** The graph, once the endpoint answers 200 with it (a 503 problem while the topic cannot be read yet). */
    JsonPath graph() {
        var response = given().header("Authorization", OPS).get("/v1/lineage");
        return response.statusCode() == 200 ? response.jsonPath() : null;
    }

    @Test
    void theGraphShowsTheRunningDecisionAppWithItsTopicsInTheBrokersNamespace() {
        String job = "job:streamhouse/streamhouse-api";
        String namespace = "kafka://" + SharedPlatform.get().bootstrapServers().split(",")[0];
        JsonPath body = await().atMost(Duration.ofSeconds(30)).until(this::graph,
                g -> g != null && g.getList("nodes.id").contains(job) && g.<Integer>get("nodes.find { it.id == '" + job + "' }.runningRuns") >= 1);

        Map<String, Object> node = body.getMap("nodes.find { it.id == '" + job + "' }");
        assertThat(node).containsEntry("kind", "JOB").containsEntry("namespace", "streamhouse").containsEntry("name", "streamhouse-api");
        List<Map<String, String>> edges = body.getList("edges");
        assertThat(edges).contains(
                Map.of("from", "dataset:" + namespace + "/" + Topics.TRANSACTION_REQUESTS.name(), "to", job),
                Map.of("from", job, "to", "dataset:" + namespace + "/" + Topics.TRANSACTION_DECISIONS.name()));
        assertThat(body.getMap("$")).as("every processor emits now: no list of those that do not")
                .containsOnlyKeys("nodes", "edges", "events", "skipped");
    }

    @Inject
    LineageLog log;

    @Test
    void theTopicIsFoldedOnceAndKeptCurrentAnEventWrittenBeforeARequestIsInItsAnswer() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(this::graph, g -> g != null);
        int followers = log.followersStarted();

        String name = "test-follower-" + System.nanoTime();
        var lineage = new JobLineage(name, new JobLineage.Engine("KAFKA_STREAMS", "APPLICATION", "kafka-streams", "test"),
                JobLineage.kafkaTopics(SharedPlatform.get().bootstrapServers(), List.of(Topics.RULES.name())), List.of());
        UUID run = UUID.randomUUID();
        EventLog.sendRaw(Topics.LINEAGE_EVENTS.name(), "streamhouse/" + name + "/" + run,
                OpenLineageClientUtils.toJson(lineage.start(run, Instant.now())).getBytes(StandardCharsets.UTF_8));

        JsonPath body = graph();
        assertThat(body).as("answered at once, not after a retry").isNotNull();
        assertThat(body.getList("nodes.id", String.class)).contains(LineageGraph.jobId("streamhouse", name));
        assertThat(log.followersStarted()).as("no new reader of the topic per request").isEqualTo(followers);
    }

    @Test
    void anEventThatIsNotOpenLineageIsSkippedAndNamedNotFatal() throws Exception {
        EventLog.sendRaw(Topics.LINEAGE_EVENTS.name(), "test/not-openlineage/" + System.nanoTime(),
                "{\"eventType\": 42".getBytes(StandardCharsets.UTF_8));

        JsonPath body = await().atMost(Duration.ofSeconds(30)).until(this::graph, g -> g != null && !g.getList("skipped").isEmpty());

        assertThat(body.getList("skipped.reason", String.class)).allSatisfy(r -> assertThat(r).startsWith("not an OpenLineage run event"));
        assertThat(body.getInt("events")).isPositive();
    }
}
