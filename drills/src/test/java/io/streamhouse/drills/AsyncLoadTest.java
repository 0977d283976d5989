package io.streamhouse.drills;

import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class AsyncLoadTest {
    /** Enough for several batches of each kind when all are due at once. */
    private static final List<GeneratedEvent> EVENTS = AsyncLoad.events(36, 4 * AsyncLoad.MAX_BATCH + 50);
    /** A start long past: every event is due at once, so the load is limited by its in-flight bound only. */
    private static final long LONG_AGO = System.nanoTime() - Duration.ofHours(1).toNanos();

    @Test
    void schedulesEventsEvenlyAtRatesAboveOneThousandPerSecond() {
        assertThat(AsyncLoad.dueNanos(0, 1_000, 1_000)).isEqualTo(1_000_000_000L);
        assertThat(AsyncLoad.dueNanos(0, 1, 3_000)).isEqualTo(333_333L);
        // 300 s at the ceiling: no overflow, the last event due just before the end
        assertThat(AsyncLoad.dueNanos(5, Drill.MAX_ASYNC_RATE * 300 - 1, Drill.MAX_ASYNC_RATE))
                .isEqualTo(5 + 300_000_000_000L - 200_000L);
    }

    @Test
    void sendsTheTelemetryAndTheScansDueTogetherAsOneBatchOfEachKind() {
        List<GeneratedEvent> due = AsyncLoad.events(36, 250);
        List<List<GeneratedEvent>> requests = AsyncLoad.requests(due);

        assertThat(requests.stream().flatMap(List::stream).toList()).containsExactlyInAnyOrderElementsOf(due);
        for (EventKind kind : List.of(EventKind.VEHICLE_TELEMETRY, EventKind.PARCEL_SCAN)) {
            List<List<GeneratedEvent>> ofKind = requests.stream().filter(r -> r.get(0).kind() == kind).toList();
            assertThat(ofKind).isNotEmpty().allSatisfy(r -> assertThat(r).hasSizeBetween(1, AsyncLoad.MAX_BATCH)
                    .allMatch(e -> e.kind() == kind));
            long events = due.stream().filter(e -> e.kind() == kind).count();
            assertThat(ofKind).as(kind.name()).hasSize((int) ((events + AsyncLoad.MAX_BATCH - 1) / AsyncLoad.MAX_BATCH));
        }
    }

    @Test
    void neverHasMoreThanTheBoundInFlightAndGoesOnAsAnswersCome() {
        int requests = AsyncLoad.requests(EVENTS).size();
        assertThat(requests).isGreaterThan(3);
        List<CompletableFuture<Integer>> pending = new CopyOnWriteArrayList<>();
        AtomicInteger outstanding = new AtomicInteger();
        AtomicInteger mostOutstanding = new AtomicInteger();
        Map<String, Integer> statuses = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(EVENTS.size());
        AsyncLoad load = new AsyncLoad(EVENTS, r -> {
            mostOutstanding.accumulateAndGet(outstanding.incrementAndGet(), Math::max);
            CompletableFuture<Integer> f = new CompletableFuture<>();
            pending.add(f);
            return f;
        }, statuses, done, 3, System::nanoTime);

        CompletableFuture<AsyncLoad.Reached> run = CompletableFuture.supplyAsync(() -> load.run(LONG_AGO, 1_000));
        await().atMost(Duration.ofSeconds(10)).until(() -> pending.size() == 3);
        assertThat(run).isNotDone();
        for (int answered = 0; answered < requests; answered++) {
            int a = answered;
            await().atMost(Duration.ofSeconds(10)).until(() -> pending.size() > a);
            outstanding.decrementAndGet(); // before the answer, whose completion lets the load send the next
            pending.get(a).complete(202);
        }
        AsyncLoad.Reached reached = run.join();

        assertThat(mostOutstanding.get()).isEqualTo(3);
        assertThat(reached.sent()).isEqualTo(EVENTS.size());
        assertThat(done.getCount()).isZero();
        assertThat(load.reached(reached).acknowledged()).isEqualTo(EVENTS.size());
    }

    @Test
    void everyEventSentGetsExactlyOneStatusItsRequestsAndOnlyTwoHundredsCountAsAcknowledged() {
        Map<String, Integer> statuses = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(EVENTS.size());
        AtomicInteger calls = new AtomicInteger();
        Map<String, Integer> requestOf = new ConcurrentHashMap<>();
        AsyncLoad load = new AsyncLoad(EVENTS, r -> {
            int call = calls.getAndIncrement();
            r.forEach(e -> requestOf.put(e.eventId(), call));
            return switch (call % 4) {
                case 0 -> CompletableFuture.completedFuture(202);
                case 1 -> CompletableFuture.completedFuture(422); // refused for good: not sent again
                case 2 -> CompletableFuture.failedFuture(new java.io.IOException("connection reset"));
                default -> throw new IllegalStateException("the client refused to send");
            };
        }, statuses, done, 2, System::nanoTime);

        AsyncLoad.Reached reached = load.reached(load.run(LONG_AGO, 1_000));

        assertThat(statuses).hasSize(EVENTS.size()).containsOnlyKeys(EVENTS.stream().map(GeneratedEvent::eventId).toList());
        statuses.forEach((id, status) -> assertThat(status).as(id).isEqualTo(switch (requestOf.get(id) % 4) {
            case 0 -> 202;
            case 1 -> 422;
            default -> 0;
        }));
        long accepted = statuses.values().stream().filter(s -> s == 202).count();
        assertThat(accepted).isPositive();
        assertThat(reached.acknowledged()).isEqualTo(accepted);
        assertThat(done.getCount()).isZero();
        // what the drill's delivery check then owes: the 202s on their topic, nothing for the others
        DrillChecks.Delivery d = DrillChecks.delivery(statuses, List.of());
        assertThat(d.accepted()).isEqualTo(accepted);
        assertThat(d.lost()).isEqualTo(accepted);
    }

    @Test
    void ratesAreOverTheSpansTheyDescribe() {
        AsyncLoad.Reached r = new AsyncLoad.Reached(40_000, 39_000, 1_000_000_000L, 41_000_000_000L, 40_000_000_000L + 1_000_000_000L + 18_500_000_000L, 0);
        assertThat(r.sentPerSecond()).isEqualTo(1_000.0);
        assertThat(r.acknowledgedPerSecond()).isEqualTo(39_000 / 58.5);
        assertThat(new AsyncLoad.Reached(0, 0, 5, 5, 5, 0).sentPerSecond()).isZero();
    }

    @Test
    void noRateSendsNothing() {
        Map<String, Integer> statuses = new ConcurrentHashMap<>();
        AsyncLoad load = new AsyncLoad(EVENTS, r -> {
            throw new AssertionError("nothing is sent at rate 0");
        }, statuses, new CountDownLatch(0), 2, System::nanoTime);
        assertThat(load.run(LONG_AGO, 0).sent()).isZero();
        assertThat(statuses).isEmpty();
    }

    /** A 429 or 503 is what a device retries after Retry-After: the load sends the request again, a bounded number of times. */
    @Test
    void aRequestRefusedFor429Or503IsSentAgainAndOneRefusedEveryTimeEndsRefused() {
        List<GeneratedEvent> some = AsyncLoad.events(36, 50);
        List<GeneratedEvent> two = List.of( // one request each
                some.stream().filter(e -> e.kind() == EventKind.VEHICLE_TELEMETRY).findFirst().orElseThrow(),
                some.stream().filter(e -> e.kind() == EventKind.PARCEL_SCAN).findFirst().orElseThrow());
        Map<String, java.util.concurrent.atomic.AtomicInteger> sends = new ConcurrentHashMap<>();
        Map<String, Integer> statuses = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(two.size());
        AsyncLoad load = new AsyncLoad(two, r -> {
            String id = r.get(0).eventId();
            int n = sends.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            // the first event's request: refused twice, then accepted; the second's: refused always
            int status = id.equals(two.get(0).eventId()) ? (n <= 2 ? (n == 1 ? 429 : 503) : 202) : 429;
            return CompletableFuture.completedFuture(status);
        }, statuses, done, 4, System::nanoTime, Runnable::run);

        AsyncLoad.Reached reached = load.reached(load.run(LONG_AGO, 1_000));

        assertThat(done.getCount()).isZero();
        assertThat(statuses).containsEntry(two.get(0).eventId(), 202).containsEntry(two.get(1).eventId(), 429);
        assertThat(sends.get(two.get(0).eventId())).hasValue(3);
        assertThat(sends.get(two.get(1).eventId())).hasValue(AsyncLoad.ATTEMPTS);
        assertThat(reached.acknowledged()).isEqualTo(1);
        assertThat(reached.resent()).isEqualTo(2 + AsyncLoad.ATTEMPTS - 1);
    }
}
