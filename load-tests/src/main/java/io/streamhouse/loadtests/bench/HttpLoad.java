package io.streamhouse.loadtests.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * HTTP load on ingest's {@code POST /v1/transactions/authorize}, open loop at a fixed rate: latency from the due
 * time, so a slow answer does not slow the load down (a request waiting for a free connection waits on the clock).
 * Every answer is classified: decided, fallback (deadline passed, {@code decided:false}), refused (429) or failed
 * (anything else, including transport errors). The latency histogram holds every 200 answer, fallbacks included: a
 * fallback is an answer the payments service waited for.
 * <p>
 * The client is Vert.x's (one event loop, {@value #CONNECTIONS} keep-alive HTTP/1.1 connections, as a payments
 * service's connection pool would be). It shares the machine's cores with the stack it measures: the JDK's HttpClient
 * used before cost 0.65–0.77 ms of CPU per request, a third of a 2-core machine at 1,000/s (docs/benchmarks-history.md).
 */
final class HttpLoad implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** An open-loop client that cannot keep this many requests in flight (waiting for a connection included) reports the rest as not sent. */
    private static final int MAX_IN_FLIGHT = 4_000;
    /** Keep-alive connections to ingest. */
    static final int CONNECTIONS = 256;

    record Result(Latencies answered, long sent, long decidedCount, long fallback, long refused, long failed,
                  long notSent, Duration elapsed, Map<String, Long> failures) {
        double decidedPerSecond() {
            return decidedCount / (elapsed.toNanos() / 1e9);
        }
    }

    private final Vertx vertx;
    private final HttpClient http;
    /** The ingest instances, taken in turn, request by request. */
    private final List<URI> targets;
    private final java.util.concurrent.atomic.AtomicLong turn = new java.util.concurrent.atomic.AtomicLong();
    private final String authorize;
    private final String probe;
    private final BenchPayments payments;
    private final String bearer;
    private final Clock clock = Clock.systemUTC();

    /** A load spread over the ingest instances, a request to each in turn. */
    HttpLoad(List<URI> ingests, BenchPayments payments, int deadlineMillis, String paymentsToken) {
        if (ingests.isEmpty()) {
            throw new IllegalArgumentException("at least one ingest URL");
        }
        this.bearer = "Bearer " + paymentsToken;
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1).setInternalBlockingPoolSize(1));
        this.http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setMaxPoolSize(CONNECTIONS)
                .setMaxWaitQueueSize(-1).setConnectTimeout(5_000));
        this.targets = List.copyOf(ingests);
        this.authorize = "/v1/transactions/authorize?deadlineMs=" + deadlineMillis;
        this.probe = "/v1/transactions/authorize?deadlineMs=" + PROBE_DEADLINE.toMillis();
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
            post(authorize, payments.body(phase, i, clock.instant()), Duration.ofSeconds(15)).onComplete(r -> {
                tally.classify(r.succeeded() ? r.result() : null, r.cause(), System.nanoTime() - due);
                inFlight.release();
                done.countDown();
            });
        }
        done.await(60, TimeUnit.SECONDS);
        return tally.result(pacer.count(), Duration.ofNanos(System.nanoTime() - began));
    }

    /** An answer: its status and body. */
    record Answer(int status, Buffer body) {
    }

    private Future<Answer> post(String uri, byte[] body, Duration timeout) {
        URI target = targets.get((int) (turn.getAndIncrement() % targets.size()));
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(target.getHost()).setPort(target.getPort()).setURI(uri)
                .putHeader("Content-Type", "application/json").putHeader("Authorization", bearer)
                .setIdleTimeout(timeout.toMillis());
        return http.request(options)
                .compose(request -> request.send(Buffer.buffer(body)))
                .compose(response -> response.body().map(b -> new Answer(response.statusCode(), b)));
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
                post(probe, payments.body(phase + "-" + round, 4L * k, clock.instant()), PROBE_DEADLINE.plusSeconds(5))
                        .onComplete(r -> {
                            try {
                                if (r.succeeded() && r.result().status() == 200
                                        && JSON.readTree(r.result().body().getBytes()).path("decided").asBoolean()) {
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

    @Override
    public void close() {
        http.close();
        vertx.close();
    }

    private static final class Tally {
        final Latencies answered = new Latencies();
        final LongAdder decidedCount = new LongAdder();
        final LongAdder fallback = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder notSent = new LongAdder();
        final Map<String, Long> failures = new ConcurrentHashMap<>();

        void classify(Answer r, Throwable e, long nanos) {
            if (e != null) {
                failed.increment();
                failures.merge(e.getClass().getSimpleName(), 1L, Long::sum);
                return;
            }
            if (r.status() == 429) {
                refused.increment();
                return;
            }
            if (r.status() != 200) {
                failed.increment();
                failures.merge("HTTP " + r.status(), 1L, Long::sum);
                return;
            }
            try {
                JsonNode answer = JSON.readTree(r.body().getBytes());
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
