package io.streamhouse.api.serving;

import java.time.Instant;
import java.util.Objects;

/** The answer to one key lookup on a serving store, wherever it was answered. */
public sealed interface Lookup<V> permits Lookup.Found, Lookup.NotFound, Lookup.Unavailable {

    /** @param validTo when a later version replaced this one (null for the current version) */
    record Found<V>(V value, Instant version, Instant validTo, Freshness freshness) implements Lookup<V> {
        public Found {
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(freshness, "freshness");
        }
    }

    /** The store that owns the key answered and has no version of it (at that instant). */
    record NotFound<V>(Freshness freshness) implements Lookup<V> {
    }

    /** No replica of the key's partition could answer (starting, or every holder is gone). */
    record Unavailable<V>(String reason) implements Lookup<V> {
    }
}
