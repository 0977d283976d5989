package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./streamhouse up} as a user runs it, end to end: platform, both apps as child JVMs, the demo load through
 * HTTP, every decision read back and checked against the demo's ground truth; then, on the same running stack, a
 * snapshot query over the log and over the sink-landed Iceberg tables agrees with the api's projections (decisions
 * per outcome; the CDC demo customer's orders) — then everything stopped, with no process left behind.
 */
class LauncherIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Path DATA = Path.of("target", "launcher-it").toAbsolutePath();
    /** How long the sink may take to land what the log holds (it commits every second). */
    private static final java.util.concurrent.atomic.AtomicInteger QUERIES = new java.util.concurrent.atomic.AtomicInteger();
    private static final Duration LAKE_CATCH_UP = Duration.ofSeconds(60);

    @Test
    void upRunsTheSliceAndStopsEverything() throws Exception {
        Path data = DATA;
        var options = LaunchOptions.parse(new String[]{"up", "--data", data.toString(), "--fresh", "--exit-after-demo",
                "--demo", "30", "--seed", "7", "--kafka-port", "0", "--registry-port", "0", "--ingest-port", "0", "--api-port", "0"});
        List<ProcessHandle> before = ProcessHandle.current().children().toList();
        boolean[] checked = {false};

        int code = Launcher.up(options, demoed -> {
            snapshotQueriesAgreeWithTheProjections(demoed);
            checked[0] = true;
        });

        assertThat(code).as("exit code of up (0: every demo decision matched the ground truth)").isZero();
        assertThat(checked[0]).as("the snapshot-query checks ran").isTrue();
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> !before.contains(p)).toList()).as("children left behind").isEmpty();
        assertThat(PidFile.running(data)).isEmpty();
    }

    private static void snapshotQueriesAgreeWithTheProjections(Launcher.Demoed demoed) throws Exception {
        long t0 = System.nanoTime();
        URI api = demoed.api();

        // (1) Decisions per outcome: the api's decision for every demo transaction (GET /v1/transactions/{id}/decision,
        // read back by the demo load) = the log's = the lake's once the sink landed the log up to the same offsets.
        Map<String, Long> served = new TreeMap<>();
        demoed.decisions().outcomes().forEach((outcome, n) -> served.put(outcome.name(), (long) n));
        assertThat(served.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(demoed.decisions().sent());
        String perOutcome = "SELECT outcome, _partition, COUNT(*), MAX(_offset) FROM %s.streamhouse.payments_transactions_decisions"
                + " GROUP BY outcome, _partition";
        JsonNode kafka = rows(api, perOutcome.formatted("kafka"));
        JsonNode lake = awaitLake(api, perOutcome.formatted("lake"), maxOffsets(kafka, 1, 3), 1, 3);
        assertThat(countsPerOutcome(kafka)).as("decisions per outcome over Kafka vs the api's").isEqualTo(served);
        assertThat(countsPerOutcome(lake)).as("decisions per outcome over Iceberg vs the api's").isEqualTo(served);

        // (2) The CDC demo customer's orders: order ids and each order's latest status, as the api's customer card
        // serves them = over the log = over the lake (landed up to the log's offsets).
        String customer = demoed.cdcCustomer().orElseThrow(() -> new AssertionError("the CDC demo did not run"));
        JsonNode card = awaitCustomer(api, customer);
        Map<String, String> servedOrders = new TreeMap<>();
        card.get("orders").forEach(o -> servedOrders.put(o.get("orderId").asText(), o.get("status").asText()));
        assertThat(servedOrders).as("the api's orders of " + customer).isNotEmpty();
        String orders = "SELECT orderId, _partition, _offset, change.OrderStatusChanged.`current`, change.OrderPlaced.total.amount"
                + " FROM %s.streamhouse.shop_orders WHERE customerId = '" + customer + "'";
        JsonNode kafkaOrders = rows(api, orders.formatted("kafka"));
        // The sink lands each partition in offset order: the customer's newest offsets landed means all of theirs did.
        JsonNode lakeOrders = awaitLake(api, orders.formatted("lake"), maxOffsets(kafkaOrders, 1, 2), 1, 2);
        assertThat(latestStatus(kafkaOrders)).as("orders of " + customer + " over Kafka vs the api's").isEqualTo(servedOrders);
        assertThat(latestStatus(lakeOrders)).as("orders of " + customer + " over Iceberg vs the api's").isEqualTo(servedOrders);
        System.out.printf("LauncherIT: snapshot queries over Kafka and Iceberg agree with the api (decisions %s; %s's orders %s): %d queries in %d ms%n",
                served, customer, servedOrders, QUERIES.get(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** Sums column 2 (a count) per column 0 (the outcome). */
    private static Map<String, Long> countsPerOutcome(JsonNode rows) {
        Map<String, Long> counts = new TreeMap<>();
        rows.forEach(r -> counts.merge(r.get(0).asText(), r.get(2).asLong(), Long::sum));
        return counts;
    }

    /** The highest offset per partition (columns {@code partition} and {@code offset} of each row). */
    private static Map<Integer, Long> maxOffsets(JsonNode rows, int partition, int offset) {
        Map<Integer, Long> max = new TreeMap<>();
        rows.forEach(r -> max.merge(r.get(partition).asInt(), r.get(offset).asLong(), Math::max));
        return max;
    }

    /** Order id → the status its newest event leaves (placed, a status change, else cancelled), as the projection folds. */
    private static Map<String, String> latestStatus(JsonNode rows) {
        Map<String, JsonNode> newest = new TreeMap<>();
        rows.forEach(r -> newest.merge(r.get(0).asText(), r, (a, b) -> b.get(2).asLong() > a.get(2).asLong() ? b : a));
        Map<String, String> status = new TreeMap<>();
        newest.forEach((order, r) -> status.put(order, !r.get(3).isNull() ? r.get(3).asText() : !r.get(4).isNull() ? "PLACED" : "CANCELLED"));
        return status;
    }

    /** Polls the lake query until its rows' highest offset per partition reaches the log's; its last rows. */
    private static JsonNode awaitLake(URI api, String sql, Map<Integer, Long> logEnd, int partition, int offset) {
        java.util.concurrent.atomic.AtomicReference<JsonNode> last = new java.util.concurrent.atomic.AtomicReference<>();
        // back-off between polls: each query is a Flink job
        org.awaitility.Awaitility.await("the lake lands the log's offsets " + logEnd).atMost(LAKE_CATCH_UP)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    JsonNode rows = rows(api, sql);
                    last.set(rows);
                    Map<Integer, Long> landed = maxOffsets(rows, partition, offset);
                    return logEnd.entrySet().stream().allMatch(e -> landed.getOrDefault(e.getKey(), -1L) >= e.getValue());
                });
        return last.get();
    }

    /** The api's customer card once it shows an order (the projection folds shop.orders shortly after the demo saw it). */
    private static JsonNode awaitCustomer(URI api, String customer) {
        java.util.concurrent.atomic.AtomicReference<JsonNode> card = new java.util.concurrent.atomic.AtomicReference<>();
        org.awaitility.Awaitility.await("GET /v1/customers/" + customer + " shows an order").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(api.resolve("/v1/customers/" + customer))
                            .header("Authorization", "Bearer " + StackTokens.read(DATA, Roles.REVIEWER))
                            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() != 200) {
                        return false;
                    }
                    card.set(JSON.readTree(r.body()));
                    return card.get().path("orders").size() > 0;
                });
        return card.get();
    }

    private static JsonNode rows(URI api, String sql) throws Exception {
        QUERIES.incrementAndGet();
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(api.resolve("/v1/sql")).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + StackTokens.read(DATA, Roles.ANALYST))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("sql", sql).toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(sql + " → " + r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("truncated").asBoolean()).as(sql + " truncated").isFalse();
        return body.get("rows");
    }
}
