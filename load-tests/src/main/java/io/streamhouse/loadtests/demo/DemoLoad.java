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
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo load: asks ingest to authorize each generated payment synchronously, checks the answer against the
 * expected outcome, then reads the decision the api recorded and checks it is the same. Bounded: a fixed count and
 * an overall deadline; loopback URLs only.
 */
public final class DemoLoad {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What a run saw. {@code mismatches} maps transaction id to "expected X, got Y"; {@code authorizeMillis} holds
     * each synchronous answer's round trip as the client saw it (informational: benchmarks live in docs).
     */
    public record Result(int sent, Map<DecisionOutcome, Integer> outcomes, Map<String, String> mismatches,
                         JsonNode example, Duration elapsed, List<Long> authorizeMillis) {
        public boolean allAsExpected() {
            return mismatches.isEmpty() && outcomes.values().stream().mapToInt(Integer::intValue).sum() == sent;
        }
    }

    /**
     * The payments of {@code seed} and {@code run} ({@link DemoTransactions#generate(long, long, int, Instant)}).
     * {@code paymentsToken}: a token with the payments role; it authorizes, and reads back its own decisions.
     */
    public static Result run(URI ingest, URI api, long seed, long run, int count, Instant start, Duration deadline, String paymentsToken)
            throws IOException, InterruptedException {
        requireLoopback(ingest);
        requireLoopback(api);
        long began = System.nanoTime();
        long until = began + deadline.toNanos();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        List<DemoTransaction> txs = DemoTransactions.generate(seed, run, count, start);
        Map<DecisionOutcome, Integer> outcomes = new EnumMap<>(DecisionOutcome.class);
        Map<String, String> mismatches = new LinkedHashMap<>();
        List<Long> authorizeMillis = new ArrayList<>();
        Map<String, String> answered = new LinkedHashMap<>();
        for (DemoTransaction tx : txs) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(ingest.resolve("/v1/transactions/authorize?deadlineMs=5000"))
                    .timeout(Duration.ofSeconds(15))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + paymentsToken)
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(tx.body()))).build(),
                    HttpResponse.BodyHandlers.ofString());
            authorizeMillis.add((System.nanoTime() - t0) / 1_000_000);
            if (r.statusCode() != 200) {
                throw new IOException("ingest refused " + tx.transactionId() + ": HTTP " + r.statusCode() + " " + r.body());
            }
            JsonNode answer = JSON.readTree(r.body());
            if (!answer.path("decided").asBoolean()) {
                mismatches.put(tx.transactionId(), "expected " + tx.expected() + ", got the fallback (no decision within 5 s)");
                continue;
            }
            answered.put(tx.transactionId(), answer.get("outcome").asText());
        }
        JsonNode example = null;
        for (DemoTransaction tx : txs) {
            if (!answered.containsKey(tx.transactionId())) {
                continue;
            }
            JsonNode decision = awaitDecision(http, api, paymentsToken, tx.transactionId(), until);
            if (decision == null) {
                mismatches.put(tx.transactionId(), "expected " + tx.expected() + ", got no decision before the deadline");
                continue;
            }
            DecisionOutcome got = DecisionOutcome.valueOf(decision.get("outcome").asText());
            outcomes.merge(got, 1, Integer::sum);
            if (got != tx.expected()) {
                mismatches.put(tx.transactionId(), "expected " + tx.expected() + ", got " + got);
            } else if (!got.name().equals(answered.get(tx.transactionId()))) {
                mismatches.put(tx.transactionId(), "authorize answered " + answered.get(tx.transactionId())
                        + " but the api recorded " + got);
            }
            if (example == null || (got == DecisionOutcome.BLOCK && !"BLOCK".equals(example.get("outcome").asText()))) {
                example = decision;
            }
        }
        return new Result(count, outcomes, mismatches, example, Duration.ofNanos(System.nanoTime() - began), authorizeMillis);
    }

    private static JsonNode awaitDecision(HttpClient http, URI api, String token, String id, long until)
            throws IOException, InterruptedException {
        // Poll with a short back-off until the overall deadline: the decision normally exists within milliseconds.
        long pause = 10;
        while (System.nanoTime() < until) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(api.resolve("/v1/transactions/" + id + "/decision"))
                    .timeout(Duration.ofSeconds(5)).header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
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
