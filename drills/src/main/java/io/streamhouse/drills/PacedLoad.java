package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.demo.DemoTransaction;
import io.streamhouse.loadtests.demo.DemoTransactions;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The synchronous half of a drill's load: the seeded demo payments (ids {@code drill-<seed>-<n>}) authorized through
 * ingest open-loop, one every 1/rate s whatever the answers take, each answer recorded as it arrives. The asynchronous
 * half is {@link AsyncLoad}.
 */
final class PacedLoad {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI ingest;
    private final String paymentsToken;
    private final String deviceToken;

    PacedLoad(HttpClient http, URI ingest, String paymentsToken, String deviceToken) {
        this.http = http;
        this.ingest = ingest;
        this.paymentsToken = paymentsToken;
        this.deviceToken = deviceToken;
    }

    /** {@code count} seeded demo payments, renamed {@code drill-…} so they are told apart from the demo's own. */
    static List<DemoTransaction> authorizes(long seed, int count) {
        return DemoTransactions.generate(seed, count, Instant.now()).stream()
                .map(t -> new DemoTransaction(t.transactionId().replaceFirst("^demo-", "drill-"),
                        t.body().deepCopy().put("transactionId", t.transactionId().replaceFirst("^demo-", "drill-")), t.expected()))
                .toList();
    }

    /** Sends {@code txs} at {@code rate} per second from {@code start} (nanos); {@code beforeEach} runs before each send. */
    void run(List<DemoTransaction> txs, long start, int rate, Map<String, DrillChecks.Answer> answers, CountDownLatch done,
             Runnable beforeEach) throws InterruptedException {
        for (int i = 0; i < txs.size(); i++) {
            waitUntil(start + i * (1_000_000_000L / rate));
            beforeEach.run();
            send(txs.get(i), answers, done);
        }
    }

    private static void waitUntil(long dueNanos) throws InterruptedException {
        long wait = dueNanos - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait); // pacing the open-loop load, not waiting for a condition
        }
    }

    private void send(DemoTransaction tx, Map<String, DrillChecks.Answer> answers, CountDownLatch done) {
        long sentAt = System.currentTimeMillis();
        // Stamped now: the generator spaces payments 250 ms apart, which runs past ingest's 5-minute future limit (422).
        String payload = tx.body().deepCopy().put("occurredAt", Instant.ofEpochMilli(sentAt).toString()).toString();
        HttpRequest request = HttpRequest.newBuilder(ingest.resolve("/v1/transactions/authorize"))
                .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + paymentsToken)
                .POST(HttpRequest.BodyPublishers.ofString(payload)).build();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
            long at = System.currentTimeMillis();
            DrillChecks.Answer a;
            if (e != null || r.statusCode() != 200) {
                a = new DrillChecks.Answer(tx.transactionId(), e != null ? 0 : r.statusCode(), null, false, sentAt, at);
            } else {
                try {
                    JsonNode body = JSON.readTree(r.body());
                    a = new DrillChecks.Answer(tx.transactionId(), 200, body.path("outcome").asText(null),
                            body.path("decided").asBoolean(false), sentAt, at);
                } catch (Exception unreadable) {
                    a = new DrillChecks.Answer(tx.transactionId(), -1, null, false, sentAt, at);
                }
            }
            answers.put(tx.transactionId(), a);
            done.countDown();
        });
    }

    /**
     * One cool reading of a tick vehicle per partition of the telemetry topic, stamped now: the partitions' event
     * time passes the load's last event by {@link EventClock#TICK_LEAD}, more than the CEP job's out-of-orderness
     * bound, so live and the rebuild both evaluate every reading of the load (the patterns' watermark is the
     * minimum over the partitions). The vehicle ids are chosen by Kafka's default partitioner (murmur2 of the key).
     */
    String closingTicks(long seed) {
        Instant now = Instant.now();
        List<String> vehicles = EventClock.tickVehicles(seed, Topics.VEHICLE_TELEMETRY.partitions());
        int accepted = 0;
        for (String vehicle : vehicles) {
            ObjectNode body = JsonNodeFactory.instance.objectNode()
                    .put("vehicleId", vehicle).put("occurredAt", now.toString()).put("speedKmh", 0)
                    .put("coolantTempC", 20).put("odometerKm", 0);
            body.putObject("position").put("lat", 52.0).put("lon", 4.3);
            HttpRequest request = HttpRequest.newBuilder(ingest.resolve("/v1/telemetry")).timeout(Duration.ofSeconds(15))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + deviceToken)
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
            try {
                int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                accepted += status / 100 == 2 ? 1 : 0;
            } catch (IOException e) {
                // told below: fewer ticks accepted than partitions
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return accepted + " of " + vehicles.size() + " readings at " + now + " accepted"
                + (accepted < vehicles.size() ? " (the CEP job may not evaluate the load's last readings)" : "");
    }
}
