package io.streamhouse.projections.serving;

import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One open partition of a versioned serving store with the latest version of the keys recently looked up kept
 * decoded in front of it: key lookups on this instance read through it, and the fold of the task that owns the
 * partition writes through it (see {@link OpenStores}).
 *
 * <p><b>Why.</b> Reading the latest version from the store is a RocksDB read and an Avro decode: about a tenth of a
 * parcel lookup's CPU (docs/benchmarks.md, "Serving"). Only lookups put keys here (in the api; a rebuild keeps its
 * writes too, see the constructor): were every state the fold writes kept, each would live until evicted and die in the
 * old generation. The fold still reads a kept key from here, and keeps it current.
 *
 * <p><b>Guarantees.</b> An entry is always the store's latest version of its key, or the store's absence of one:
 * <ul>
 *   <li>the task's stream thread is the only writer of the store; after each write it counts a change, then replaces
 *       the key's entry if there is one (with the written value if it became the latest version, else it drops it:
 *       a write older than the store's history is refused);</li>
 *   <li>a reader that misses reads the store and keeps what it read only if no change (write or eviction) was
 *       counted since it started reading: otherwise the value it read may already be older than the store's. The
 *       check and the insertion are one atomic step of the map for that key, and a writer or evicter counts before
 *       it replaces or removes, so the two cannot interleave;</li>
 *   <li>values are shared, not copied: folds never change a state once built (they build a new one), and readers
 *       only read;</li>
 *   <li>like the store itself, an entry can hold a write of the current, not yet committed transaction; if that
 *       transaction aborts, Streams closes the task (dirty) and this cache goes with it.</li>
 * </ul>
 * At most about {@code capacity} keys are kept (evicted oldest inserted first, so a hot key is re-read now and then);
 * capacity 0 reads the store each time. Once closed (the task is suspended or closed) every read fails, as the
 * store's would, so that callers ask Kafka Streams instead.
 */
public final class LatestValues<V> {
    /** A cached absence: the store had no version of the key, and nothing was written since. */
    private static final VersionedRecord<?> NONE = new VersionedRecord<>(new Object(), Long.MIN_VALUE);

    private final VersionedKeyValueStore<String, V> store;
    private final int capacity;
    private final boolean keepWrites;
    private final Map<String, VersionedRecord<V>> entries = new ConcurrentHashMap<>();
    private final Queue<String> insertionOrder = new ConcurrentLinkedQueue<>();
    private final AtomicLong changes = new AtomicLong();
    private volatile boolean closed;

    LatestValues(VersionedKeyValueStore<String, V> store, int capacity) {
        this(store, capacity, false);
    }

    /**
     * @param keepWrites keep what the fold writes too, not only what lookups read: for a rebuild, where nobody looks
     *                   keys up, so that the fold reads each key's previous state from here instead of decoding it from
     *                   the store on every event (the GC cost above is a long-running api's, not a rebuild's)
     */
    LatestValues(VersionedKeyValueStore<String, V> store, int capacity, boolean keepWrites) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, was " + capacity);
        }
        this.store = store;
        this.capacity = capacity;
        this.keepWrites = keepWrites;
    }

    /** The latest version of the key, null if the store has none; throws once closed. */
    public VersionedRecord<V> get(String key) {
        VersionedRecord<V> cached = capacity == 0 ? null : entries.get(key);
        if (cached == null) {
            long changesBefore = changes.get();
            VersionedRecord<V> stored = store.get(key);
            VersionedRecord<V> entry = stored == null ? none() : stored;
            if (capacity > 0) {
                boolean[] inserted = {false};
                entries.computeIfAbsent(key, k -> {
                    if (changes.get() != changesBefore) {
                        return null;
                    }
                    inserted[0] = true;
                    return entry;
                });
                if (inserted[0]) {
                    inserted(key);
                }
            }
            cached = entry;
        }
        if (closed) {
            throw new IllegalStateException("store partition closed");
        }
        return cached == NONE ? null : cached;
    }

    /** The latest version for the owning task's fold: a kept entry, else the store (not kept: see the class comment). */
    VersionedRecord<V> forUpdate(String key) {
        VersionedRecord<V> cached = capacity == 0 ? null : entries.get(key);
        if (cached == null) {
            return store.get(key);
        }
        return cached == NONE ? null : cached;
    }

    /**
     * Writes a version to the store (the owning task's stream thread only) and updates the key's entry if kept.
     *
     * @return what the store returned ({@link VersionedKeyValueStore#PUT_RETURN_CODE_NOT_PUT} for a write older
     *         than its history)
     */
    long put(String key, V value, long timestamp) {
        long validTo = store.put(key, value, timestamp);
        if (capacity == 0) {
            return validTo;
        }
        changes.incrementAndGet();
        if (validTo == VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED) {
            if (!keepWrites) {
                entries.computeIfPresent(key, (k, old) -> new VersionedRecord<>(value, timestamp));
            } else if (entries.put(key, new VersionedRecord<>(value, timestamp)) == null) {
                inserted(key);
            }
        } else {
            entries.remove(key); // not the latest version: the next read fetches what the store holds
        }
        return validTo;
    }

    /** How many keys are kept now (tests, diagnostics). */
    int size() {
        return entries.size();
    }

    void close() {
        closed = true;
        changes.incrementAndGet();
        entries.clear();
    }

    private void inserted(String key) {
        insertionOrder.add(key);
        while (entries.size() > capacity) {
            String oldest = insertionOrder.poll();
            if (oldest == null) {
                return;
            }
            changes.incrementAndGet();
            entries.remove(oldest);
        }
    }

    @SuppressWarnings("unchecked")
    private static <V> VersionedRecord<V> none() {
        return (VersionedRecord<V>) NONE;
    }
}
