package io.streamhouse.security.http;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * One token bucket per caller: {@code burst} requests at once, refilled at {@code perSecond}; a caller may have a limit
 * of its own (a busy payment gateway). Callers are verified token subjects, so the map grows only with the identities
 * a trusted key signed. Thread-safe.
 */
public final class TokenBuckets {
    public record Limit(double perSecond, int burst) {
        public Limit {
            if (!(perSecond > 0) || burst < 1) {
                throw new IllegalArgumentException("a rate limit needs per-second > 0 and burst >= 1, was " + perSecond + ", " + burst);
            }
        }

        /** Whole seconds until an empty bucket holds a request again (at least 1), for Retry-After. */
        public long retryAfterSeconds() {
            return Math.max(1, (long) Math.ceil(1 / perSecond));
        }
    }

    private final Limit defaults;
    private final Map<String, Limit> perCaller;
    private final LongSupplier nanos;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    public TokenBuckets(Limit defaults, Map<String, Limit> perCaller, LongSupplier nanos) {
        this.defaults = defaults;
        this.perCaller = Map.copyOf(perCaller);
        this.nanos = nanos;
    }

    /**
     * Parses {@code subject:perSecond:burst} entries separated by commas, e.g. {@code gateway-eu:5000:10000}; blank is
     * none. A malformed entry fails the start with its text.
     */
    public static Map<String, Limit> parseOverrides(String spec) {
        Map<String, Limit> limits = new HashMap<>();
        if (spec == null || spec.isBlank()) {
            return limits;
        }
        for (String entry : spec.split(",")) {
            String[] parts = entry.trim().split(":");
            try {
                if (parts.length != 3 || parts[0].isBlank()) {
                    throw new IllegalArgumentException("expected subject:perSecond:burst");
                }
                limits.put(parts[0], new Limit(Double.parseDouble(parts[1]), Integer.parseInt(parts[2])));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("streamhouse.security.rate-limit.overrides: bad entry '" + entry.trim()
                        + "' (" + e.getMessage() + ")", e);
            }
        }
        return limits;
    }

    public Limit limitOf(String caller) {
        return perCaller.getOrDefault(caller, defaults);
    }

    /** Takes one request from the caller's bucket; false if it is empty. */
    public boolean tryAcquire(String caller) {
        return buckets.computeIfAbsent(caller, c -> new Bucket(limitOf(c), nanos.getAsLong())).tryAcquire();
    }

    private final class Bucket {
        private final Limit limit;
        private double tokens;
        private long last;

        Bucket(Limit limit, long now) {
            this.limit = limit;
            this.tokens = limit.burst();
            this.last = now;
        }

        synchronized boolean tryAcquire() {
            long now = nanos.getAsLong();
            tokens = Math.min(limit.burst(), tokens + (now - last) / 1e9 * limit.perSecond());
            last = now;
            if (tokens >= 1) {
                tokens -= 1;
                return true;
            }
            return false;
        }
    }
}
