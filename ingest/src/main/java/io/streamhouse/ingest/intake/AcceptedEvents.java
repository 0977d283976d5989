package io.streamhouse.ingest.intake;

import io.streamhouse.ingest.kafka.Accepted;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * This instance's memory of the event ids it accepted, so that a retried request is answered with the original
 * position instead of being written again.
 *
 * <p><b>Guarantee.</b> An event id claimed here is written at most once by this instance while its entry lives: from
 * the first claim, through the write, until {@code window} after the broker acknowledged it, or until
 * {@code maxEntries} younger ids pushed it out, whichever comes first. A repeat that arrives while the first write is
 * still in flight waits for that write rather than starting a second one. A write that failed is forgotten at once,
 * so its retry writes it. The same id with different content (compared by a fingerprint the caller computes,
 * without the edge's own {@code recordedAt}/{@code source}) is a conflict, never silently taken for a repeat.
 *
 * <p><b>Not covered.</b> Repeats that reach another instance, repeats after this instance restarted, and repeats
 * after the window: those are written again, with the same event id (clients send one, or it is derived from the
 * natural key). Consumers of the log must therefore still de-duplicate by the envelope's event id; this cache only
 * keeps the common case (a client retrying a timed-out request at the same instance within minutes) off the log.
 *
 * <p>Entries are kept in claim order; expiry and the size bound remove the oldest first, and never an entry whose
 * write is still in flight (those settle within the publish timeout). Thread-safe; time comes from the clock given.
 */
public final class AcceptedEvents {

    /** What a claim found. */
    public sealed interface Claim permits Fresh, Seen, Conflict {
    }

    /** Not seen: the caller writes it, then reports {@link #accepted} or {@link #failed}. */
    public record Fresh(String eventId) implements Claim {
    }

    /** Seen with the same content: completes with the original's position (or fails if the original write fails). */
    public record Seen(String eventId, CompletableFuture<Accepted> original) implements Claim {
    }

    /** Seen with different content. */
    public record Conflict(String eventId) implements Claim {
    }

    private static final class Entry {
        final byte[] fingerprint;
        final CompletableFuture<Accepted> outcome = new CompletableFuture<>();
        Instant acceptedAt;

        Entry(byte[] fingerprint) {
            this.fingerprint = fingerprint;
        }
    }

    private final Clock clock;
    private final Duration window;
    private final int maxEntries;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();

    public AcceptedEvents(Clock clock, Duration window, int maxEntries) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.window = Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero() || maxEntries < 1) {
            throw new IllegalArgumentException("the de-duplication window must be positive and hold at least one entry");
        }
        this.maxEntries = maxEntries;
    }

    public synchronized Claim claim(String eventId, byte[] fingerprint) {
        evict();
        Entry known = entries.get(eventId);
        if (known != null) {
            return Arrays.equals(known.fingerprint, fingerprint) ? new Seen(eventId, known.outcome) : new Conflict(eventId);
        }
        entries.put(eventId, new Entry(fingerprint.clone()));
        evict();
        return new Fresh(eventId);
    }

    /** The broker acknowledged the write of a fresh claim: repeats from now on get this position. */
    public void accepted(String eventId, Accepted where) {
        Entry e;
        synchronized (this) {
            e = entries.get(eventId);
            if (e == null) {
                return;
            }
            e.acceptedAt = clock.instant();
        }
        e.outcome.complete(where);
    }

    /** The write of a fresh claim failed or was abandoned: forget it, so that a retry writes it. */
    public void failed(String eventId, Throwable why) {
        Entry e;
        synchronized (this) {
            e = entries.get(eventId);
            if (e == null || e.acceptedAt != null) {
                return;
            }
            entries.remove(eventId);
        }
        e.outcome.completeExceptionally(why);
    }

    public synchronized int size() {
        return entries.size();
    }

    private void evict() {
        Instant expiredBefore = clock.instant().minus(window);
        Iterator<Map.Entry<String, Entry>> oldestFirst = entries.entrySet().iterator();
        while (oldestFirst.hasNext()) {
            Entry e = oldestFirst.next().getValue();
            boolean settled = e.acceptedAt != null;
            if (settled && (entries.size() > maxEntries || e.acceptedAt.isBefore(expiredBefore))) {
                oldestFirst.remove();
            } else {
                return;
            }
        }
    }
}
