package io.streamhouse.loadtests.bench;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop pacing: the i-th send is due at {@code start + i / rate}, whatever happened to earlier ones, so a slow
 * answer cannot hold back the load (no coordinated omission). Latencies are measured from the due time, not from the
 * moment the client got round to sending.
 */
final class Pacer {
    private final long startNanos;
    private final double periodNanos;
    private final long count;

    Pacer(long startNanos, int perSecond, Duration duration) {
        if (perSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive, was " + perSecond);
        }
        this.startNanos = startNanos;
        this.periodNanos = 1e9 / perSecond;
        this.count = Math.max(1, (long) (perSecond * (duration.toNanos() / 1e9)));
    }

    long count() {
        return count;
    }

    /** Due time of send {@code i}; parks until then. */
    long awaitDue(long i) {
        long due = startNanos + (long) (i * periodNanos);
        long now;
        while ((now = System.nanoTime()) < due) {
            LockSupport.parkNanos(Math.min(due - now, 1_000_000));
        }
        return due;
    }
}
