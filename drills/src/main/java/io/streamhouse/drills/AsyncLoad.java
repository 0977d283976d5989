package io.streamhouse.drills;

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
 * request, not per reading, is what lets ingest keep up), and its parcel scans as another ({@code POST
 * /v1/parcels/scans}, as a hub's sorter uploads them). At
 * most {@code maxInFlight} requests are outstanding: when ingest answers slower than the rate asks, the load falls
 * behind its schedule (and says so in {@link Reached}) instead of opening a connection per waiting request. A request
 * refused with 429 (ingest's in-flight limit: nothing of it written) or 503 (the log did not acknowledge in time) is sent
 * again after {@link #RETRY_AFTER}, as a device does, at most {@link #ATTEMPTS} times in all; ingest writes a re-sent
 * event once (by its event id). Every event
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
    /** Ingest's Retry-After on a 429. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);
    /**
     * Sends of one request at most, the first included: a minute of retries, as a device keeps a reading while the
     * service is away (10 gave up within a broker restart's outage and its backlog).
     */
    static final int ATTEMPTS = 60;

    /**
     * What the load reached: events sent and acknowledged (2xx), and when (nanos of the load's clock) the first was
     * sent, the last was sent and the last answer came; {@code resent}: requests sent again after a 429 or 503.
     */
    record Reached(long sent, long acknowledged, long firstSentNanos, long lastSentNanos, long lastAnsweredNanos, long resent) {
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
    private final AtomicLong resent = new AtomicLong();
    private final java.util.concurrent.Executor later;

    /**
     * @param send     sends one request of one or more events (several: telemetry only), completing with its HTTP status
     *                 (exceptionally: no answer)
     * @param statuses each event's status by event id, filled as answers come
     * @param done     counted down once per event answered or failed
     */
    AsyncLoad(List<GeneratedEvent> events, Function<List<GeneratedEvent>, CompletableFuture<Integer>> send, Map<String, Integer> statuses,
              CountDownLatch done, int maxInFlight, LongSupplier nanoClock) {
        this(events, send, statuses, done, maxInFlight, nanoClock,
                CompletableFuture.delayedExecutor(RETRY_AFTER.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
    }

    /** @param later runs a re-send once {@link #RETRY_AFTER} has passed */
    AsyncLoad(List<GeneratedEvent> events, Function<List<GeneratedEvent>, CompletableFuture<Integer>> send, Map<String, Integer> statuses,
              CountDownLatch done, int maxInFlight, LongSupplier nanoClock, java.util.concurrent.Executor later) {
        this.events = List.copyOf(events);
        this.send = send;
        this.statuses = statuses;
        this.done = done;
        this.inFlight = new Semaphore(maxInFlight);
        this.nanoClock = nanoClock;
        this.later = later;
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
            return new Reached(0, 0, startNanos, startNanos, startNanos, 0);
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
                    return new Reached(sent, acknowledged.get(), first, last, Math.max(last, lastAnswered.get()), resent.get());
                }
                long at = nanoClock.getAsLong();
                first = first < 0 ? at : first;
                last = at;
                sent += request.size();
                send(request);
            }
            i = end;
        }
        return new Reached(sent, acknowledged.get(), first, last, Math.max(last, lastAnswered.get()), resent.get());
    }

    private void send(List<GeneratedEvent> request) {
        send(request, 1);
    }

    private void send(List<GeneratedEvent> request, int attempt) {
        CompletableFuture<Integer> answer;
        try {
            answer = send.apply(request);
        } catch (RuntimeException unsent) {
            answer = CompletableFuture.failedFuture(unsent);
        }
        answer.whenComplete((status, failure) -> {
            int s = failure != null || status == null ? 0 : status;
            if ((s == 429 || s == 503) && attempt < ATTEMPTS) {
                resent.incrementAndGet();
                later.execute(() -> send(request, attempt + 1)); // its in-flight slot stays taken meanwhile
                return;
            }
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

    /**
     * The requests for events due together: their telemetry readings and their parcel scans, each kind in batches of at
     * most {@link #MAX_BATCH}, in the order of each kind's first event.
     */
    static List<List<GeneratedEvent>> requests(List<GeneratedEvent> due) {
        List<List<GeneratedEvent>> requests = new ArrayList<>();
        Map<EventKind, List<GeneratedEvent>> open = new java.util.EnumMap<>(EventKind.class);
        for (GeneratedEvent e : due) {
            List<GeneratedEvent> batch = open.get(e.kind());
            if (batch == null) {
                batch = new ArrayList<>();
                open.put(e.kind(), batch);
                requests.add(batch);
            }
            batch.add(e);
            if (batch.size() == MAX_BATCH) {
                open.remove(e.kind());
            }
        }
        return requests;
    }

    /** The figures once every answer is in (or what came by now). */
    Reached reached(Reached atLastSend) {
        return new Reached(atLastSend.sent(), acknowledged.get(), atLastSend.firstSentNanos(), atLastSend.lastSentNanos(),
                Math.max(atLastSend.lastSentNanos(), lastAnswered.get()), resent.get());
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

    /** The parcel scans or the telemetry readings of {@code events} as one JSON array. */
    private static HttpRequest request(List<GeneratedEvent> events, URI ingest, String deviceToken, EventClock clock) {
        URI uri;
        ArrayNode items = JsonNodeFactory.instance.arrayNode();
        if (events.get(0).value() instanceof ParcelScanned) {
            uri = ingest.resolve("/v1/parcels/scans");
            for (GeneratedEvent e : events) {
                ParcelScanned s = (ParcelScanned) e.value();
                items.add(shifted(EdgeJson.parcelScan(s), e, clock).put("parcelId", s.getParcelId()));
            }
        } else {
            uri = ingest.resolve("/v1/telemetry");
            for (GeneratedEvent e : events) {
                items.add(shifted(EdgeJson.telemetry((VehicleTelemetry) e.value()), e, clock));
            }
        }
        String body = items.toString();
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
