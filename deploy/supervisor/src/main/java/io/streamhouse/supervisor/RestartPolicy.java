package io.streamhouse.supervisor;

import java.time.Duration;

/**
 * When a supervised child that died is started again: after {@code initialBackoff}, doubling per consecutive
 * failure up to {@code maxBackoff}; after {@code maxRestarts} consecutive failures it is given up ({@code FAILED}).
 * A child that stayed up for {@code stableAfter} counts as healthy again: its next death starts from the first backoff.
 */
public record RestartPolicy(int maxRestarts, Duration initialBackoff, Duration maxBackoff, Duration stableAfter) {

    /** No restarts: a child that dies stays down (tests that kill a child on purpose, ephemeral platforms). */
    public static final RestartPolicy NEVER = new RestartPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1));

    /** The launcher's: 1, 2, 4, 8, 16 s, then give up; a minute up resets the count. */
    public static final RestartPolicy LAUNCHER = new RestartPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(60));

    public RestartPolicy {
        if (maxRestarts < 0 || initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0 || stableAfter.isNegative()) {
            throw new IllegalArgumentException("invalid restart policy " + maxRestarts + ", " + initialBackoff + ", " + maxBackoff + ", " + stableAfter);
        }
    }

    /** Backoff before restart number {@code consecutive} (1-based) of a run of failures. */
    public Duration backoff(int consecutive) {
        Duration d = initialBackoff;
        for (int i = 1; i < consecutive && d.compareTo(maxBackoff) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }
}
