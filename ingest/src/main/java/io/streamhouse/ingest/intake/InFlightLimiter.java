package io.streamhouse.ingest.intake;

import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the events handed to the producer and not yet acknowledged. A request takes one permit per event up front
 * or is refused at once (never queued: a client that is told 429 can back off, a queued request only times out);
 * each permit comes back when the broker answered for its event, so the bound holds even for requests that timed
 * out and still have records in the producer's buffer.
 */
public final class InFlightLimiter {
    private final Semaphore permits;
    private final int max;

    public InFlightLimiter(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max in flight must be at least 1, was " + max);
        }
        this.max = max;
        this.permits = new Semaphore(max);
    }

    /** @return the permits for {@code events} events, or empty when that many are not free right now */
    public Optional<Permits> tryAcquire(int events) {
        if (events < 1 || events > max) {
            throw new IllegalArgumentException("cannot take " + events + " permits of " + max);
        }
        return permits.tryAcquire(events) ? Optional.of(new Permits(permits, events)) : Optional.empty();
    }

    public int available() {
        return permits.availablePermits();
    }

    public int max() {
        return max;
    }

    /** Permits held by one request; each is given back once, however often release is called. */
    public static final class Permits {
        /** For writers that are bounded otherwise (the MQTT bridge handles one message at a time). */
        public static final Permits NONE = new Permits(new Semaphore(0), 0);

        private final Semaphore permits;
        private final AtomicInteger held;

        private Permits(Semaphore permits, int held) {
            this.permits = permits;
            this.held = new AtomicInteger(held);
        }

        public void releaseOne() {
            if (held.getAndUpdate(h -> h > 0 ? h - 1 : 0) > 0) {
                permits.release();
            }
        }

        public void releaseAll() {
            int n = held.getAndSet(0);
            if (n > 0) {
                permits.release(n);
            }
        }
    }
}
