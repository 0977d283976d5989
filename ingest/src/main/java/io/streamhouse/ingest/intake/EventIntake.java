package io.streamhouse.ingest.intake;

import io.streamhouse.domain.topic.Topic;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.ingest.http.FieldError;
import io.streamhouse.ingest.kafka.Accepted;
import io.streamhouse.ingest.kafka.EventLog;
import io.streamhouse.ingest.kafka.PublishException;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.avro.specific.SpecificRecord;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one way events enter the log, for every HTTP resource and the MQTT bridge: de-duplicates by event id
 * ({@link AcceptedEvents}), bounds what HTTP has in flight per topic ({@link InFlightLimiter}: a flood of telemetry
 * does not turn payments away, nor payments telemetry), writes through
 * {@link EventLog}, and returns only once every event of the request is acknowledged, or throws.
 *
 * <p>Outcomes: every event acknowledged (or recognised as a repeat) → the positions; any event id reused with
 * different content → {@link ConflictException}, nothing written; HTTP in-flight bound reached →
 * {@link TooBusyException}, nothing written; any write not acknowledged in time → {@link PublishException}, in which
 * case some events of a batch may be written: they are remembered, so retrying the same request writes only the rest.
 */
@ApplicationScoped
@Startup // so that a max-in-flight below max-batch stops the boot rather than the first request
public class EventIntake {
    private final EventLog log;
    private final AcceptedEvents accepted;
    private final int maxInFlight;
    private final java.util.concurrent.ConcurrentMap<String, InFlightLimiter> limiters = new java.util.concurrent.ConcurrentHashMap<>();

    public EventIntake(EventLog log, IngestConfig config, Clock clock) {
        if (config.maxInFlight() < config.maxBatch()) {
            throw new IllegalArgumentException("streamhouse.max-in-flight (" + config.maxInFlight()
                    + ") must be at least streamhouse.max-batch (" + config.maxBatch() + "), or a full batch could never pass");
        }
        this.log = log;
        this.accepted = new AcceptedEvents(clock, config.dedup().window(), config.dedup().maxEntries());
        this.maxInFlight = config.maxInFlight();
    }

    /** For HTTP: refused with {@link TooBusyException} when the events would exceed the in-flight bound. */
    public <V extends SpecificRecord> List<Accepted> acceptWithinLimit(Topic<String, V> topic, List<Submission<V>> events) {
        return accept(topic, events, permits(topic, events.size()));
    }

    /**
     * As {@link #acceptWithinLimit}, without waiting: refusals (conflict, too busy, not handed over) are thrown at
     * once; the returned future completes when every event is acknowledged, or fails with {@link PublishException}
     * when one was not within the publish timeout. For callers that must not hold a thread while the log answers.
     */
    public <V extends SpecificRecord> CompletableFuture<List<Accepted>> acceptWithinLimitAsync(Topic<String, V> topic,
                                                                                               List<Submission<V>> events) {
        long started = System.nanoTime();
        return whenAll(topic, started, send(topic, events, permits(topic, events.size())));
    }

    /** For writers bounded otherwise (the MQTT bridge writes one message at a time). */
    public <V extends SpecificRecord> List<Accepted> accept(Topic<String, V> topic, List<Submission<V>> events) {
        return accept(topic, events, InFlightLimiter.Permits.NONE);
    }

    private InFlightLimiter.Permits permits(Topic<?, ?> topic, int events) {
        InFlightLimiter limiter = limiter(topic);
        return limiter.tryAcquire(events).orElseThrow(() -> new TooBusyException(events + " event(s) would exceed the "
                + limiter.max() + " this instance may have in flight to " + topic.name()));
    }

    /** A topic's limiter ({@code streamhouse.max-in-flight} events each), for operators' metrics and for tests that must fill it. */
    public InFlightLimiter limiter(Topic<?, ?> topic) {
        return limiters.computeIfAbsent(topic.name(), name -> new InFlightLimiter(maxInFlight));
    }

    private <V extends SpecificRecord> List<Accepted> accept(Topic<String, V> topic, List<Submission<V>> events,
                                                            InFlightLimiter.Permits permits) {
        long started = System.nanoTime();
        return awaitAll(topic, started, send(topic, events, permits));
    }

    /** Claims every event's id, then hands the fresh ones to the log; one future per event, in order. */
    private <V extends SpecificRecord> List<CompletableFuture<Accepted>> send(Topic<String, V> topic, List<Submission<V>> events,
                                                                             InFlightLimiter.Permits permits) {
        List<AcceptedEvents.Claim> claims = new ArrayList<>(events.size());
        List<FieldError> conflicts = new ArrayList<>();
        try {
            for (int i = 0; i < events.size(); i++) {
                Submission<V> s = events.get(i);
                AcceptedEvents.Claim claim = accepted.claim(s.eventId(), s.fingerprint());
                claims.add(claim);
                if (claim instanceof AcceptedEvents.Conflict) {
                    conflicts.add(new FieldError(prefix(events.size(), i) + s.eventIdField(),
                            "event id " + s.eventId() + " was already accepted for a different event"));
                }
            }
        } catch (RuntimeException e) {
            abandon(claims, e);
            permits.releaseAll();
            throw e;
        }
        if (!conflicts.isEmpty()) {
            abandon(claims, new ConflictException(conflicts));
            permits.releaseAll();
            throw new ConflictException(conflicts);
        }

        List<CompletableFuture<Accepted>> outcomes = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            Submission<V> s = events.get(i);
            // Java 17: no pattern switch yet; Conflict cannot occur here (refused above).
            AcceptedEvents.Claim claim = claims.get(i);
            if (claim instanceof AcceptedEvents.Seen seen) {
                permits.releaseOne();
                outcomes.add(seen.original().thenApply(Accepted::asDuplicate));
                continue;
            }
            try {
                outcomes.add(log.send(topic, s.key(), s.event(), s.headers()).handle((m, error) -> {
                    permits.releaseOne();
                    if (error != null) {
                        accepted.failed(s.eventId(), error);
                        throw new PublishException("could not write to " + topic.name() + ": " + error.getMessage(), error);
                    }
                    var where = new Accepted(s.id(), s.eventId(), m.topic(), m.partition(), m.offset(), false);
                    accepted.accepted(s.eventId(), where);
                    return where;
                }));
            } catch (RuntimeException e) {
                // Not handed over: this one and the rest are forgotten; those already sent settle by themselves.
                abandon(claims.subList(i, claims.size()), e);
                permits.releaseAll();
                throw e;
            }
        }
        return outcomes;
    }

    /** The publish timeout counts from {@code started}, before the events were handed over (which may block). */
    private CompletableFuture<List<Accepted>> whenAll(Topic<String, ?> topic, long started, List<CompletableFuture<Accepted>> outcomes) {
        var all = new CompletableFuture<List<Accepted>>();
        CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new))
                .orTimeout(Math.max(0, log.timeout().toNanos() - (System.nanoTime() - started)), TimeUnit.NANOSECONDS)
                .whenComplete((ignored, error) -> {
                    if (error == null) {
                        all.complete(outcomes.stream().map(CompletableFuture::join).toList());
                        return;
                    }
                    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    all.completeExceptionally(publishFailure(topic, cause));
                });
        return all;
    }

    private List<Accepted> awaitAll(Topic<String, ?> topic, long started, List<CompletableFuture<Accepted>> outcomes) {
        long deadline = started + log.timeout().toNanos();
        List<Accepted> result = new ArrayList<>(outcomes.size());
        for (CompletableFuture<Accepted> outcome : outcomes) {
            try {
                result.add(outcome.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PublishException("interrupted while writing to " + topic.name(), e);
            } catch (ExecutionException e) {
                throw publishFailure(topic, e.getCause());
            } catch (TimeoutException e) {
                throw publishFailure(topic, e);
            }
        }
        return result;
    }

    /** What a caller is told when an event was not acknowledged: in time, or at all. */
    private PublishException publishFailure(Topic<String, ?> topic, Throwable cause) {
        if (cause instanceof PublishException p) {
            return p;
        }
        if (cause instanceof TimeoutException) {
            return new PublishException("no acknowledgement from " + topic.name() + " within " + log.timeout(), cause);
        }
        return new PublishException("could not write to " + topic.name() + ": " + cause.getMessage(), cause);
    }

    private void abandon(List<AcceptedEvents.Claim> claims, Throwable why) {
        for (AcceptedEvents.Claim c : claims) {
            if (c instanceof AcceptedEvents.Fresh fresh) {
                // A concurrent repeat waiting on this claim learns the write did not happen and may retry.
                accepted.failed(fresh.eventId(), new PublishException(
                        "the request that first carried event id " + fresh.eventId() + " was not written", why));
            }
        }
    }

    private static String prefix(int size, int index) {
        return size == 1 ? "" : "[" + index + "].";
    }
}
