package io.streamhouse.loadtests.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * HTTP load on ingest's {@code POST /v1/transactions/authorize}, open loop at a fixed rate: latency from the due
 * time, so a slow answer does not slow the load down. Every answer is classified: decided, fallback (deadline passed, {@code decided:false}),
 * refused (429) or failed (anything else, including transport errors). The latency histogram holds every 200
 * answer, fallbacks included: a fallback is an answer the payments service waited for.
 */
final class HttpLoad {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** An open-loop client that cannot keep this many requests in flight reports the rest as not sent. */
    private static final int MAX_IN_FLIGHT = 4_000;

    record Result(Latencies answered, long sent, long decidedCount, long fallback, long refused, long failed,
                  long notSent, Duration elapsed, Map<String, Long> failures) {
        double decidedPerSecond() {
            return decidedCount / (elapsed.toNanos() / 1e9);
        }
    }

    private final HttpClient http;
    private final URI authorize;
    private final URI probe;
    private final BenchPayments payments;
    private final String token;
    private final Clock clock = Clock.systemUTC();

    HttpLoad(URI ingest, BenchPayments payments, int deadlineMillis, String paymentsToken) {
        this.token = paymentsToken;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .executor(Executors.newFixedThreadPool(4, r -> {
                    Thread t = new Thread(r, "bench-http");
                    t.setDaemon(true);
                    return t;
                })).build();
        this.authorize = ingest.resolve("/v1/transactions/authorize?deadlineMs=" + deadlineMillis);
        this.probe = ingest.resolve("/v1/transactions/authorize?deadlineMs=" + PROBE_DEADLINE.toMillis());
        this.payments = payments;
    }

    Result openLoop(String phase, int perSecond, Duration duration) throws InterruptedException {
        Tally tally = new Tally();
        Pacer pacer = new Pacer(System.nanoTime() + 200_000_000L, perSecond, duration);
        Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
        CountDownLatch done = new CountDownLatch((int) pacer.count());
        long began = System.nanoTime();
        for (long i = 0; i < pacer.count(); i++) {
            long due = pacer.awaitDue(i);
            if (!inFlight.tryAcquire()) {
                tally.notSent.increment();
                done.countDown();
                continue;
            }
            http.sendAsync(request(phase, i), HttpResponse.BodyHandlers.ofByteArray()).whenComplete((r, e) -> {
                tally.classify(r, e, System.nanoTime() - due);
                inFlight.release();
                done.countDown();
            });
        }
        done.await(60, TimeUnit.SECONDS);
        return tally.result(pacer.count(), Duration.ofNanos(System.nanoTime() - began));
    }

    /** Ingest's longest deadline (streamhouse.authorize.max-deadline). */
    private static final Duration PROBE_DEADLINE = Duration.ofSeconds(10);

    /**
     * Waits until the decision app has worked off everything sent before: rounds of {@code probes} payments on as many
     * new cards, at once, with the longest deadline, until every probe of a round is decided. Each card's requests are
     * decided in order on its partition, so a decided probe means its partition's backlog is gone; 60 cards miss one
     * of 6 partitions with a probability of about 1e-4.
     *
     * @return how long it took, or empty if {@code timeout} passed first
     */
    java.util.Optional<Duration> drain(String phase, int probes, Duration timeout) throws InterruptedException {
        long began = System.nanoTime();
        for (int round = 0; System.nanoTime() - began < timeout.toNanos(); round++) {
            CountDownLatch done = new CountDownLatch(probes);
            LongAdder decided = new LongAdder();
            for (int k = 0; k < probes; k++) {
                // One new card per probe: payments 4k.. of a phase are card k's.
                HttpRequest request = HttpRequest.newBuilder(probe).timeout(PROBE_DEADLINE.plusSeconds(5))
                        .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(payments.body(phase + "-" + round, 4L * k, clock.instant()))).build();
                http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).whenComplete((r, e) -> {
                    try {
                        if (e == null && r.statusCode() == 200 && JSON.readTree(r.body()).path("decided").asBoolean()) {
                            decided.increment();
                        }
                    } catch (java.io.IOException ignored) {
                        // not decided
                    } finally {
                        done.countDown();
                    }
                });
            }
            done.await(PROBE_DEADLINE.toSeconds() + 10, TimeUnit.SECONDS);
            if (decided.sum() == probes) {
                return java.util.Optional.of(Duration.ofNanos(System.nanoTime() - began));
            }
        }
        return java.util.Optional.empty();
    }

    private HttpRequest request(String phase, long i) {
        return HttpRequest.newBuilder(authorize).timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofByteArray(payments.body(phase, i, clock.instant()))).build();
    }

    private static final class Tally {
        final Latencies answered = new Latencies();
        final LongAdder decidedCount = new LongAdder();
        final LongAdder fallback = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder notSent = new LongAdder();
        final Map<String, Long> failures = new ConcurrentHashMap<>();

        void classify(HttpResponse<byte[]> r, Throwable e, long nanos) {
            if (e != null) {
                failed.increment();
                failures.merge(e.getClass().getSimpleName(), 1L, Long::sum);
                return;
            }
            if (r.statusCode() == 429) {
                refused.increment();
                return;
            }
            if (r.statusCode() != 200) {
                failed.increment();
                failures.merge("HTTP " + r.statusCode(), 1L, Long::sum);
                return;
            }
            try {
                JsonNode answer = JSON.readTree(r.body());
                answered.recordNanos(nanos);
                if (answer.path("decided").asBoolean()) {
                    decidedCount.increment();
                } else {
                    fallback.increment();
                }
            } catch (java.io.IOException bad) {
                failed.increment();
                failures.merge("unreadable answer", 1L, Long::sum);
            }
        }

        Result result(long sent, Duration elapsed) {
            return new Result(answered, sent, decidedCount.sum(), fallback.sum(), refused.sum(), failed.sum(), notSent.sum(),
                    elapsed, Map.copyOf(failures));
        }
    }
}
