package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Posts authorizations to ingest ({@code POST /v1/transactions}), the way a payment terminal or gateway would, with
 * the card's test PAN ({@link TestPans}) instead of its token.
 *
 * <p>Only transactions: ingest has no HTTP endpoint yet for customers, orders, parcel scans or telemetry (customers
 * and orders will come by CDC, scans and telemetry by endpoints and MQTT later), so {@link #supportedKinds()} is
 * {@code TRANSACTION} and a run asking for anything else fails before sending. At most {@code concurrency} requests
 * are in flight; with 1 (the default) the delivery order, and so the ground truth of late events, holds exactly; with
 * more, requests in flight together may arrive in any order. Anything but 202 fails the run. Loopback only.
 */
public final class HttpSink implements Sink {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final URI endpoint;
    private final Map<String, String> panByToken;
    private final HttpClient http;
    private final int concurrency;
    private final Semaphore inFlight;
    private final AtomicReference<String> failure = new AtomicReference<>();

    public HttpSink(String ingestUrl, Map<String, String> panByToken, int concurrency) {
        URI base = Loopback.requireUri(ingestUrl, "ingest URL");
        if (concurrency < 1 || concurrency > 64) {
            throw new IllegalArgumentException("concurrency must be 1..64, was " + concurrency);
        }
        this.endpoint = base.resolve("/v1/transactions");
        this.panByToken = Map.copyOf(panByToken);
        this.concurrency = concurrency;
        this.inFlight = new Semaphore(concurrency);
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public String describe() {
        return "ingest " + endpoint;
    }

    @Override
    public Set<EventKind> supportedKinds() {
        return EnumSet.of(EventKind.TRANSACTION);
    }

    @Override
    public void send(GeneratedEvent e) throws IOException {
        throwIfFailed();
        if (!(e.value() instanceof TransactionAuthorizationRequested tx)) {
            throw new UnsupportedOperationException(describe() + " cannot send " + e.kind()
                    + " events: ingest has no HTTP endpoint for them yet");
        }
        String pan = panByToken.get(tx.getCardToken());
        if (pan == null) {
            throw new IllegalStateException("no test PAN for card " + tx.getCardToken());
        }
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(TransactionJson.body(tx, pan))))
                .build();
        try {
            inFlight.acquire();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while sending " + tx.getTransactionId(), ie);
        }
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
            try {
                if (error != null) {
                    failure.compareAndSet(null, tx.getTransactionId() + ": " + error);
                } else if (response.statusCode() != 202) {
                    failure.compareAndSet(null, tx.getTransactionId() + ": HTTP " + response.statusCode() + " "
                            + response.body());
                }
            } finally {
                inFlight.release();
            }
        });
    }

    @Override
    public void flush(long deadlineNanos) throws IOException {
        try {
            long wait = Math.max(0, deadlineNanos - System.nanoTime());
            if (!inFlight.tryAcquire(concurrency, wait, TimeUnit.NANOSECONDS)) {
                throw new IOException(describe() + ": requests still in flight at the deadline");
            }
            inFlight.release(concurrency);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for ingest", ie);
        }
        throwIfFailed();
    }

    private void throwIfFailed() throws IOException {
        String f = failure.get();
        if (f != null) {
            throw new IOException("ingest refused a transaction: " + f);
        }
    }

    @Override
    public void close() {
        // The JDK client has no close on 17; its threads end once it is unreachable.
    }
}
