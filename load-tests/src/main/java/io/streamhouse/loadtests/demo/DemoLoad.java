package io.streamhouse.loadtests.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.DecisionOutcome;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo load: posts generated payments to ingest, then reads each decision back from the api and checks it
 * against the expected outcome. Bounded: a fixed count and an overall deadline; loopback URLs only.
 */
public final class DemoLoad {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a run saw. {@code mismatches} maps transaction id to "expected X, got Y". */
    public record Result(int sent, Map<DecisionOutcome, Integer> outcomes, Map<String, String> mismatches,
                         JsonNode example, Duration elapsed) {
        public boolean allAsExpected() {
            return mismatches.isEmpty() && outcomes.values().stream().mapToInt(Integer::intValue).sum() == sent;
        }
    }

    public static Result run(URI ingest, URI api, long seed, int count, Instant start, Duration deadline)
            throws IOException, InterruptedException {
        requireLoopback(ingest);
        requireLoopback(api);
        long began = System.nanoTime();
        long until = began + deadline.toNanos();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        List<DemoTransaction> txs = DemoTransactions.generate(seed, count, start);
        for (DemoTransaction tx : txs) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(ingest.resolve("/v1/transactions"))
                    .timeout(Duration.ofSeconds(15))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(tx.body()))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 202) {
                throw new IOException("ingest refused " + tx.transactionId() + ": HTTP " + r.statusCode() + " " + r.body());
            }
        }
        Map<DecisionOutcome, Integer> outcomes = new EnumMap<>(DecisionOutcome.class);
        Map<String, String> mismatches = new LinkedHashMap<>();
        JsonNode example = null;
        for (DemoTransaction tx : txs) {
            JsonNode decision = awaitDecision(http, api, tx.transactionId(), until);
            if (decision == null) {
                mismatches.put(tx.transactionId(), "expected " + tx.expected() + ", got no decision before the deadline");
                continue;
            }
            DecisionOutcome got = DecisionOutcome.valueOf(decision.get("outcome").asText());
            outcomes.merge(got, 1, Integer::sum);
            if (got != tx.expected()) {
                mismatches.put(tx.transactionId(), "expected " + tx.expected() + ", got " + got);
            }
            if (example == null || (got == DecisionOutcome.BLOCK && !"BLOCK".equals(example.get("outcome").asText()))) {
                example = decision;
            }
        }
        return new Result(count, outcomes, mismatches, example, Duration.ofNanos(System.nanoTime() - began));
    }

    private static JsonNode awaitDecision(HttpClient http, URI api, String id, long until)
            throws IOException, InterruptedException {
        // Poll with a short back-off until the overall deadline: the decision normally exists within milliseconds.
        long pause = 10;
        while (System.nanoTime() < until) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(api.resolve("/v1/transactions/" + id + "/decision"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                return JSON.readTree(r.body());
            }
            if (r.statusCode() != 404 && r.statusCode() != 503) {
                throw new IOException("api answered HTTP " + r.statusCode() + " for " + id + ": " + r.body());
            }
            Thread.sleep(pause);
            pause = Math.min(200, pause * 2);
        }
        return null;
    }

    private static void requireLoopback(URI uri) {
        String host = uri.getHost();
        if (!("127.0.0.1".equals(host) || "localhost".equals(host) || "[::1]".equals(host) || "::1".equals(host))) {
            throw new IllegalArgumentException("load is only sent to loopback addresses, not " + uri);
        }
    }

    private DemoLoad() {
    }
}
