package io.streamhouse.replay;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.loadtests.generator.EdgeJson;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The drill's asynchronous traffic: the seeded generator's telemetry readings and parcel scans, open loop at a rate.
 * The events due within one {@link #TICK} go out together, at most {@link #TICK} after their due time: the tick's
 * telemetry readings as one batch request (ingest's {@code POST /v1/telemetry} takes an array, and one publish wait per
 * request, not per reading, is what lets ingest keep up), each scan as its own request (scanners send one by one). At
 * most {@code maxInFlight} requests are outstanding: when ingest answers slower than the rate asks, the load falls
 * behind its schedule (and says so in {@link Reached}) instead of opening a connection per waiting request. Every event
 * sent gets exactly one status in {@code statuses} (its request's; 0: no answer) and counts down {@code done} once, so
 * the checks account for every acknowledged (2xx) event.
 */
final class AsyncLoad {
    /** Requests outstanding at once: ingest's publish waits for the broker, so a few hundred keep 1,000/s and more moving. */
    static final int MAX_IN_FLIGHT = 256;
    /** Events due within one tick are sent together. */
    static final Duration TICK = Duration.ofMillis(20);
    /** Most readings in one telemetry request (ingest takes up to 500). */
    static final int MAX_BATCH = 100;

    /**
     * What the load reached: events sent and acknowledged (2xx), and when (nanos of the load's clock) the first was
     * sent, the last was sent and the last answer came.
     */
    record Reached(long sent, long acknowledged, long firstSentNanos, long lastSentNanos, long lastAnsweredNanos) {
        /** Sent per second, over the span from the first send to the last. */
        double sentPerSecond() {
            return perSecond(sent, lastSentNanos - firstSentNanos);
        }

        /** Acknowledged per second, over the span from the first send to the last answer. */
        double acknowledgedPerSecond() {
            return perSecond(acknowledged, lastAnsweredNanos - firstSentNanos);
        }

        private static double perSecond(long n, long nanos) {
            return n == 0 ? 0 : n * 1e9 / Math.max(nanos, 1_000_000L);
        }
    }

    private final List<GeneratedEvent> events;
    private final Function<List<GeneratedEvent>, CompletableFuture<Integer>> send;
    private final Map<String, Integer> statuses;
    private final CountDownLatch done;
    private final Semaphore inFlight;
    private final LongSupplier nanoClock;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong lastAnswered = new AtomicLong();

    /**
     * @param send     sends one request of one or more events (several: telemetry only), completing with its HTTP status
     *                 (exceptionally: no answer)
     * @param statuses each event's status by event id, filled as answers come
     * @param done     counted down once per event answered or failed
     */
    AsyncLoad(List<GeneratedEvent> events, Function<List<GeneratedEvent>, CompletableFuture<Integer>> send, Map<String, Integer> statuses,
              CountDownLatch done, int maxInFlight, LongSupplier nanoClock) {
        this.events = List.copyOf(events);
        this.send = send;
        this.statuses = statuses;
        this.done = done;
        this.inFlight = new Semaphore(maxInFlight);
        this.nanoClock = nanoClock;
    }

    /** Sends through ingest's HTTP endpoints, event time moved by {@code clock}, as the device role. */
    static AsyncLoad overHttp(List<GeneratedEvent> events, HttpClient http, URI ingest, String deviceToken, EventClock clock,
                              Map<String, Integer> statuses, CountDownLatch done) {
        return new AsyncLoad(events, r -> http.sendAsync(request(r, ingest, deviceToken, clock), HttpResponse.BodyHandlers.discarding())
                .thenApply(HttpResponse::statusCode), statuses, done, MAX_IN_FLIGHT, System::nanoTime);
    }

    /** When event {@code i} of an open-loop load of {@code perSecond} is due, from the load's start. */
    static long dueNanos(long startNanos, int i, int perSecond) {
        return startNanos + (long) i * 1_000_000_000L / perSecond;
    }

    /**
     * Sends every event at its due time (a late one at once: the load catches up rather than skips), blocking while
     * {@code maxInFlight} are outstanding. Returns once all are sent; their answers may still be on their way.
     */
    Reached run(long startNanos, int perSecond) {
        if (perSecond <= 0 || events.isEmpty()) {
            return new Reached(0, 0, startNanos, startNanos, startNanos);
        }
        long first = -1, last = -1;
        int sent = 0;
        int i = 0;
        while (i < events.size()) {
            long wait = dueNanos(startNanos, i, perSecond) + TICK.toNanos() - nanoClock.getAsLong();
            if (wait > 0) {
                LockSupport.parkNanos(wait); // pacing the open-loop load, not waiting for a condition
            }
            int end = i + 1;
            long now = nanoClock.getAsLong();
            while (end < events.size() && dueNanos(startNanos, end, perSecond) <= now) {
                end++;
            }
            List<List<GeneratedEvent>> requests = requests(events.subList(i, end));
            for (List<GeneratedEvent> request : requests) {
                try {
                    inFlight.acquire();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new Reached(sent, acknowledged.get(), first, last, Math.max(last, lastAnswered.get()));
                }
                long at = nanoClock.getAsLong();
                first = first < 0 ? at : first;
                last = at;
                sent += request.size();
                send(request);
            }
            i = end;
        }
        return new Reached(sent, acknowledged.get(), first, last, Math.max(last, lastAnswered.get()));
    }

    private void send(List<GeneratedEvent> request) {
        CompletableFuture<Integer> answer;
        try {
            answer = send.apply(request);
        } catch (RuntimeException unsent) {
            answer = CompletableFuture.failedFuture(unsent);
        }
        answer.whenComplete((status, failure) -> {
            int s = failure != null || status == null ? 0 : status;
            for (GeneratedEvent e : request) {
                statuses.put(e.eventId(), s);
                if (s / 100 == 2) {
                    acknowledged.incrementAndGet();
                }
            }
            lastAnswered.accumulateAndGet(nanoClock.getAsLong(), Math::max);
            inFlight.release();
            request.forEach(e -> done.countDown());
        });
    }

    /** The requests for events due together: their telemetry readings in batches of at most {@link #MAX_BATCH}, each scan alone. */
    static List<List<GeneratedEvent>> requests(List<GeneratedEvent> due) {
        List<List<GeneratedEvent>> requests = new ArrayList<>();
        List<GeneratedEvent> batch = new ArrayList<>();
        for (GeneratedEvent e : due) {
            if (e.kind() == EventKind.VEHICLE_TELEMETRY) {
                batch.add(e);
                if (batch.size() == MAX_BATCH) {
                    requests.add(batch);
                    batch = new ArrayList<>();
                }
            } else {
                requests.add(List.of(e));
            }
        }
        if (!batch.isEmpty()) {
            requests.add(batch);
        }
        return requests;
    }

    /** The figures once every answer is in (or what came by now). */
    Reached reached(Reached atLastSend) {
        return new Reached(atLastSend.sent(), acknowledged.get(), atLastSend.firstSentNanos(), atLastSend.lastSentNanos(),
                Math.max(atLastSend.lastSentNanos(), lastAnswered.get()));
    }

    /** Telemetry readings and parcel scans from the seeded generator (the asynchronous half of ingest's traffic). */
    static List<GeneratedEvent> events(long seed, int count) {
        if (count == 0) {
            return List.of();
        }
        List<GeneratedEvent> out = new ArrayList<>();
        for (int generated = count * 3; out.size() < count && generated <= count * 48; generated *= 2) {
            out.clear();
            for (GeneratedEvent e : Generator.generate(GeneratorConfig.defaults(seed, generated)).events()) {
                if ((e.kind() == EventKind.VEHICLE_TELEMETRY || e.kind() == EventKind.PARCEL_SCAN) && out.size() < count) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    /** One scan, or the telemetry readings of {@code events} as one JSON array. */
    private static HttpRequest request(List<GeneratedEvent> events, URI ingest, String deviceToken, EventClock clock) {
        URI uri;
        String body;
        if (events.get(0).value() instanceof ParcelScanned s) {
            uri = ingest.resolve("/v1/parcels/" + URLEncoder.encode(s.getParcelId(), StandardCharsets.UTF_8) + "/scans");
            body = shifted(EdgeJson.parcelScan(s), events.get(0), clock).toString();
        } else {
            uri = ingest.resolve("/v1/telemetry");
            ArrayNode readings = JsonNodeFactory.instance.arrayNode();
            for (GeneratedEvent e : events) {
                readings.add(shifted(EdgeJson.telemetry((VehicleTelemetry) e.value()), e, clock));
            }
            body = readings.toString();
        }
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + deviceToken)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static ObjectNode shifted(ObjectNode body, GeneratedEvent e, EventClock clock) {
        long shiftMs = clock.at(e.occurredAt()).toEpochMilli() - e.occurredAt().toEpochMilli();
        shift(body, "occurredAt", shiftMs);
        shift(body, "promisedBy", shiftMs); // the promise keeps its distance to the scan
        return body;
    }

    private static void shift(ObjectNode body, String field, long shiftMs) {
        if (body.hasNonNull(field)) {
            body.put(field, Instant.parse(body.get(field).asText()).plusMillis(shiftMs).toString());
        }
    }
}
