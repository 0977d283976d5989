package io.streamhouse.security.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Bearer tokens already verified, each until the moment it must be verified again: its expiry, or earlier when a
 * maximum token age applies. A payments service sends the same token with every request for its lifetime, and checking
 * its RS256 signature every time was a third of ingest's CPU at 1,000 authorizations/s; a token found here is not
 * verified again. Keyed by the whole token (header, claims and signature): a token that differs in one character is
 * another token. Never more permissive than verifying: an entry is used only strictly before its deadline, and what
 * failed verification is never remembered. Bounded: when full, the expired entries go, and if none has, nothing more is
 * remembered until some have (the requests are verified as before).
 *
 * @param <T> what verifying the token gave (the parsed token)
 */
public final class VerifiedTokens<T> {
    private record Entry<T>(T verified, long validUntilSeconds) {
    }

    private final Map<String, Entry<T>> entries = new ConcurrentHashMap<>();
    private final int maxEntries;
    private final LongSupplier nowSeconds;

    /**
     * @param maxEntries how many tokens are remembered at most
     * @param nowSeconds the current time in epoch seconds (the unit of a token's exp and iat claims)
     */
    public VerifiedTokens(int maxEntries, LongSupplier nowSeconds) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
        }
        this.maxEntries = maxEntries;
        this.nowSeconds = nowSeconds;
    }

    /** What verifying {@code token} gave, if it was verified and its deadline has not come; else null. */
    public T get(String token) {
        Entry<T> e = entries.get(token);
        if (e == null) {
            return null;
        }
        if (nowSeconds.getAsLong() >= e.validUntilSeconds()) {
            entries.remove(token, e);
            return null;
        }
        return e.verified();
    }

    /**
     * Remembers a verified token until {@code validUntilSeconds} (exclusive). A token with no deadline (0 or less) is
     * not remembered.
     */
    public void put(String token, T verified, long validUntilSeconds) {
        long now = nowSeconds.getAsLong();
        if (validUntilSeconds <= now) {
            return;
        }
        if (entries.size() >= maxEntries) {
            entries.values().removeIf(e -> now >= e.validUntilSeconds());
            if (entries.size() >= maxEntries) {
                return;
            }
        }
        entries.put(token, new Entry<>(verified, validUntilSeconds));
    }

    /** How many tokens are remembered (expired ones included until they are next looked up or purged). */
    public int size() {
        return entries.size();
    }

    /**
     * The moment a token verified now must be verified again: its expiry, or its issue time plus the maximum token
     * age when one is configured, whichever is first; 0 (not to be remembered) without an expiry.
     */
    public static long deadline(long expiresAtSeconds, long issuedAtSeconds, Long maxAgeSeconds) {
        if (expiresAtSeconds <= 0) {
            return 0;
        }
        if (maxAgeSeconds == null) {
            return expiresAtSeconds;
        }
        return Math.min(expiresAtSeconds, issuedAtSeconds + maxAgeSeconds);
    }
}
