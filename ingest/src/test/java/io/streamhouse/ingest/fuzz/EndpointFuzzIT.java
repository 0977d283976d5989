package io.streamhouse.ingest.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.fuzz.FuzzCase.Expect;
import io.streamhouse.ingest.testing.LogRecords;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * At least 10,000 seeded malformed, boundary and valid payloads per endpoint, sent to a running ingest on the shared
 * platform. What must hold for every one: no answer is a 5xx; every refusal is a 4xx problem document; every payload
 * valid by construction is accepted; and every accepted event is on its topic exactly once, at the partition and
 * offset ingest answered, with the event id it answered — nothing valid lost, nothing doubled.
 */
@QuarkusTest
class EndpointFuzzIT {
    private static final int PER_ENDPOINT = 10_000;
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    @TestHTTPResource("/")
    URL base;

    /** Both edge roles: the fuzz cases cover the payments and the device endpoints. */
    private static final String TOKEN = TestTokens.of("test-fuzz", Roles.PAYMENTS, Roles.DEVICE);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void transactions() throws Exception {
        fuzz(new Payloads("POST /v1/transactions", Shapes.transactions(RUN + "t", "/v1/transactions"), 1).generate(PER_ENDPOINT),
                Topics.TRANSACTION_REQUESTS);
    }

    @Test
    void authorize() throws Exception {
        // deadlineMs=1: no decider runs in this test, so valid requests get the explicit fallback — after being written.
        fuzz(new Payloads("POST /v1/transactions/authorize",
                Shapes.transactions(RUN + "a", "/v1/transactions/authorize?deadlineMs=1"), 2).generate(PER_ENDPOINT),
                Topics.TRANSACTION_REQUESTS);
    }

    @Test
    void telemetry() throws Exception {
        fuzz(new Payloads("POST /v1/telemetry", Shapes.telemetry(RUN), 3).generate(PER_ENDPOINT), Topics.VEHICLE_TELEMETRY);
    }

    @Test
    void parcelScans() throws Exception {
        List<FuzzCase> cases = new ArrayList<>(new Payloads("POST /v1/parcels/{id}/scans", Shapes.parcelScans(RUN), 4)
                .generate(PER_ENDPOINT));
        byte[] valid = Payloads.bytes(Shapes.parcelScans(RUN).valid(0, new java.util.SplittableRandom(0)));
        for (String badId : List.of("p".repeat(65), "a%20b", "%00", "a%2Fb", "%F0%9F%93%A6", "-leading-dash")) {
            cases.add(new FuzzCase("parcel id '" + badId + "'", "/v1/parcels/" + badId + "/scans", "application/json", valid,
                    Expect.REJECT));
        }
        fuzz(cases, Topics.PARCEL_SCANS);
    }

    @Test
    void parcelScanBatches() throws Exception {
        fuzz(new Payloads("POST /v1/parcels/scans", Shapes.parcelScanBatches(RUN), 5).generate(PER_ENDPOINT), Topics.PARCEL_SCANS);
    }

    /** One accepted event as ingest reported it; partition -1 when the answer does not carry the position. */
    private record Accepted(FuzzCase source, String eventId, int partition, long offset) {
    }

    private <V extends SpecificRecord> void fuzz(List<FuzzCase> cases, Topic<String, V> topic) throws Exception {
        assertThat(cases).hasSizeGreaterThanOrEqualTo(PER_ENDPOINT);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Accepted> accepted = new ConcurrentLinkedQueue<>();
        Map<Integer, Integer> statuses = new java.util.concurrent.ConcurrentHashMap<>();
        Map<Expect, Integer> expected = new HashMap<>();
        cases.forEach(c -> expected.merge(c.expect(), 1, Integer::sum));
        long sendStarted = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (FuzzCase c : cases) {
                sent.add(pool.submit(() -> {
                    check(c, violations, accepted, statuses);
                    return null;
                }));
            }
            for (Future<?> f : sent) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        long sent = System.nanoTime();
        System.out.printf("fuzz %s: %d cases %s, answers by status %s, sent in %d ms%n", topic.name(), cases.size(), expected,
                new java.util.TreeMap<>(statuses), (sent - sendStarted) / 1_000_000);
        assertThat(violations).as("contract violations among %d cases %s", cases.size(), expected).isEmpty();

        // Every accepted event is on the log, once, where ingest said, with the id it said.
        Map<String, Integer> seen = new HashMap<>();
        Map<String, String> idAt = new HashMap<>();
        for (var r : LogRecords.all(topic)) {
            GenericRecord value = (GenericRecord) LogRecords.decode(topic, r.value());
            String eventId = ((io.streamhouse.domain.event.Envelope) value.get("envelope")).getEventId();
            seen.merge(eventId, 1, Integer::sum);
            idAt.put(r.partition() + "@" + r.offset(), eventId);
        }
        List<String> lost = new ArrayList<>();
        for (Accepted a : accepted) {
            String there = a.partition() < 0 ? a.eventId() : idAt.get(a.partition() + "@" + a.offset());
            if (!a.eventId().equals(there) || seen.getOrDefault(a.eventId(), 0) != 1) {
                lost.add(a.source().what() + ": event " + a.eventId() + " answered at " + a.partition() + "@" + a.offset()
                        + ", log has " + there + " there and the id " + seen.getOrDefault(a.eventId(), 0) + " times");
            }
        }
        System.out.printf("fuzz %s: %d accepted events checked against the log in %d ms%n", topic.name(), accepted.size(),
                (System.nanoTime() - sent) / 1_000_000);
        assertThat(lost).as("accepted events not on the log exactly once").isEmpty();
        assertThat(accepted).as("accepted events").hasSizeGreaterThanOrEqualTo(expected.get(Expect.ACCEPT));
    }

    private void check(FuzzCase c, ConcurrentLinkedQueue<String> violations, ConcurrentLinkedQueue<Accepted> accepted,
                       Map<Integer, Integer> statuses) throws Exception {
        HttpResponse<String> r;
        boolean retried = false;
        try {
            r = send(c);
        } catch (java.io.IOException e) {
            // A refused oversized body may be answered 413 and the connection closed before the client finished sending.
            if (c.body().length > 512 * 1024) {
                return;
            }
            // A pooled keep-alive connection the server has just closed (after a 413 it closes the connection the
            // client was still writing to) fails with no response at all. A client retries, which ingest's
            // idempotency by event id makes safe; the answer to the retry is what is judged.
            try {
                retried = true;
                r = send(c);
            } catch (java.io.IOException again) {
                violations.add(c.what() + ": transport error twice: " + e + "; " + again);
                return;
            }
        }
        int status = r.statusCode();
        statuses.merge(status, 1, Integer::sum);
        if (status >= 500) {
            violations.add(c.what() + ": HTTP " + status + " " + abbreviate(r.body()) + " for " + abbreviate(body(c)));
            return;
        }
        boolean ok = status == 200 || status == 202;
        if (ok) {
            JsonNode answer = Payloads.JSON.readTree(r.body());
            List<JsonNode> items = new ArrayList<>();
            if (answer.isArray()) { // a batch: one answer per item
                answer.forEach(items::add);
            } else {
                items.add(answer);
            }
            for (JsonNode item : items) {
                if (item.path("duplicate").asBoolean(false) && !retried) {
                    violations.add(c.what() + ": a fresh payload was answered as a duplicate: " + abbreviate(r.body()));
                } else if (item.hasNonNull("partition") && item.hasNonNull("offset") && item.hasNonNull("eventId")) {
                    accepted.add(new Accepted(c, item.get("eventId").asText(), item.get("partition").asInt(),
                            item.get("offset").asLong()));
                } else if (item.hasNonNull("eventId") && c.path().startsWith("/v1/transactions/authorize")) {
                    // authorize answers the decision (here the fallback) and the event id, not the log position
                    accepted.add(new Accepted(c, item.get("eventId").asText(), -1, -1));
                } else {
                    violations.add(c.what() + ": accepted without event id and topic position: " + abbreviate(r.body()));
                }
            }
        }
        switch (c.expect()) {
            case ACCEPT -> {
                if (!ok) {
                    violations.add(c.what() + ": valid payload refused with HTTP " + status + " " + abbreviate(r.body())
                            + " for " + abbreviate(body(c)));
                }
            }
            case REJECT -> {
                if (ok) {
                    violations.add(c.what() + ": invalid payload accepted: " + abbreviate(body(c)));
                } else if (status < 400 || !r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
                    violations.add(c.what() + ": refusal is HTTP " + status + " "
                            + r.headers().firstValue("Content-Type").orElse("(no content type)") + ", not a 4xx problem document");
                }
            }
            case EITHER -> {
                if (!ok && status < 400) {
                    violations.add(c.what() + ": HTTP " + status);
                }
            }
        }
    }

    private HttpResponse<String> send(FuzzCase c) throws java.io.IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve(c.path().substring(1)))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", c.contentType())
                .header("Authorization", TestTokens.bearer(TOKEN))
                .POST(HttpRequest.BodyPublishers.ofByteArray(c.body())).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String body(FuzzCase c) {
        return new String(c.body(), 0, Math.min(c.body().length, 300), StandardCharsets.UTF_8);
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }
}
