package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
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
 * Posts events to ingest the way the edges would: authorizations to {@code POST /v1/transactions} as a payment
 * gateway (with the card's test PAN, {@link TestPans}, instead of its token), telemetry to {@code POST /v1/telemetry}
 * as a vehicle, parcel scans to {@code POST /v1/parcels/{id}/scans} as a hub scanner ({@link EdgeJson}).
 *
 * <p>Customers and orders have no HTTP endpoint: they come from the shop database by CDC (the PostgreSQL target), so
 * a run asking for them fails before sending. At most {@code concurrency} requests
 * are in flight; with 1 (the default) the delivery order, and so the ground truth of late events, holds exactly; with
 * more, requests in flight together may arrive in any order. Anything but 202 fails the run. Loopback only.
 */
public final class HttpSink implements Sink {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final URI base;
    private final URI endpoint;
    private final String paymentsToken;
    private final String deviceToken;
    private final Map<String, String> panByToken;
    private final HttpClient http;
    private final int concurrency;
    private final Semaphore inFlight;
    private final AtomicReference<String> failure = new AtomicReference<>();

    /** {@code paymentsToken} sends the authorizations, {@code deviceToken} the telemetry and scans. */
    public HttpSink(String ingestUrl, Map<String, String> panByToken, int concurrency, String paymentsToken, String deviceToken) {
        this.paymentsToken = paymentsToken;
        this.deviceToken = deviceToken;
        URI base = Loopback.requireUri(ingestUrl, "ingest URL");
        if (concurrency < 1 || concurrency > 64) {
            throw new IllegalArgumentException("concurrency must be 1..64, was " + concurrency);
        }
        this.base = base;
        this.endpoint = base.resolve("/v1/transactions");
        this.panByToken = Map.copyOf(panByToken);
        this.concurrency = concurrency;
        this.inFlight = new Semaphore(concurrency);
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public String describe() {
        return "ingest " + base;
    }

    @Override
    public Set<EventKind> supportedKinds() {
        return EnumSet.of(EventKind.TRANSACTION, EventKind.VEHICLE_TELEMETRY, EventKind.PARCEL_SCAN);
    }

    @Override
    public void send(GeneratedEvent e) throws IOException {
        throwIfFailed();
        URI target;
        String token;
        byte[] body;
        if (e.value() instanceof TransactionAuthorizationRequested tx) {
            String pan = panByToken.get(tx.getCardToken());
            if (pan == null) {
                throw new IllegalStateException("no test PAN for card " + tx.getCardToken());
            }
            target = endpoint;
            token = paymentsToken;
            body = JSON.writeValueAsBytes(TransactionJson.body(tx, pan));
        } else if (e.value() instanceof VehicleTelemetry t) {
            target = base.resolve("/v1/telemetry");
            token = deviceToken;
            body = JSON.writeValueAsBytes(EdgeJson.telemetry(t));
        } else if (e.value() instanceof ParcelScanned scan) {
            target = base.resolve("/v1/parcels/" + URLEncoder.encode(scan.getParcelId(), StandardCharsets.UTF_8) + "/scans");
            token = deviceToken;
            body = JSON.writeValueAsBytes(EdgeJson.parcelScan(scan));
        } else {
            throw new UnsupportedOperationException(describe() + " cannot send " + e.kind()
                    + " events: they come from the shop database by change data capture, not over HTTP");
        }
        String what = e.kind() + " " + e.eventId();
        HttpRequest request = HttpRequest.newBuilder(target)
                .timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        try {
            inFlight.acquire();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while sending " + what, ie);
        }
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
            try {
                if (error != null) {
                    failure.compareAndSet(null, what + ": " + error);
                } else if (response.statusCode() != 202) {
                    failure.compareAndSet(null, what + ": HTTP " + response.statusCode() + " " + response.body());
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
            throw new IOException("ingest refused an event: " + f);
        }
    }

    @Override
    public void close() {
        // The JDK client has no close on 17; its threads end once it is unreachable.
    }
}
