package io.streamhouse.projections.serving;

import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.VersionedKeyValueStore;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The versioned serving stores that this Kafka Streams instance's active, running tasks hold open, by store name and
 * partition: a key lookup on an active partition here reads the store directly instead of through
 * {@code KafkaStreams.query}.
 *
 * <p><b>Why.</b> Every IQv2 query copies the set of all tasks of every stream thread (and, with the state updater,
 * takes its lock) to find the one task it needs: a quarter of a parcel lookup's CPU in a profile (docs/benchmarks.md,
 * "Serving"), more than the store read itself. The store and its read path are the same ones IQv2 uses (the metered
 * versioned store, its serde); only the search for the task is skipped. Each partition is registered as
 * {@link LatestValues}: the store with the latest values of recently looked-up keys kept decoded, which the task's
 * fold keeps current.
 *
 * <p><b>Guarantees.</b> A store is registered when its task's processor is initialised, which Streams does only once
 * the task is active and restored (RUNNING), and removed when the processor is closed, which Streams does whenever
 * the task is suspended or closed, clean or dirty (a rebalance, a migration, a failure, shutdown). So a store found
 * here answers exactly as {@code StateQueryRequest.requireActive()} would. A read racing with a close can still meet a
 * closed partition (its reads then throw); callers treat any exception as "not here" and fall back to IQv2, which
 * also serves standbys and {@code asOf} reads. One instance per {@code KafkaStreams} instance (several may share a JVM).
 */
public final class OpenStores {
    /** Keys kept decoded per open store partition unless told otherwise (see {@link LatestValues}). */
    public static final int DEFAULT_CACHED_KEYS_PER_PARTITION = 1_000;

    private record Key(String store, int partition) {
    }

    private final Map<Key, LatestValues<?>> open = new ConcurrentHashMap<>();
    private final Map<Key, KeyValueStore<String, ?>> openKeyValue = new ConcurrentHashMap<>();
    private final int cachedKeysPerPartition;
    private final boolean keepWrites;

    public OpenStores() {
        this(DEFAULT_CACHED_KEYS_PER_PARTITION);
    }

    /** @param cachedKeysPerPartition latest values kept decoded per open store partition; 0 reads the store each time */
    public OpenStores(int cachedKeysPerPartition) {
        this(cachedKeysPerPartition, false);
    }

    private OpenStores(int cachedKeysPerPartition, boolean keepWrites) {
        if (cachedKeysPerPartition < 0) {
            throw new IllegalArgumentException("cachedKeysPerPartition must be >= 0, was " + cachedKeysPerPartition);
        }
        this.cachedKeysPerPartition = cachedKeysPerPartition;
        this.keepWrites = keepWrites;
    }

    /**
     * For a rebuild (a replay's shadow): the folds' own writes are kept decoded as well, up to
     * {@code cachedKeysPerPartition} keys per partition, so a fold finds its key's previous state in memory rather
     * than decoding it from the store on each event (see {@link LatestValues}).
     */
    public static OpenStores keepingWrites(int cachedKeysPerPartition) {
        return new OpenStores(cachedKeysPerPartition, true);
    }

    /** Registers a task's store partition; the task's fold reads and writes through what this returns. */
    <V> LatestValues<V> opened(String store, int partition, VersionedKeyValueStore<String, V> handle) {
        LatestValues<V> values = new LatestValues<>(Objects.requireNonNull(handle, "handle"), cachedKeysPerPartition, keepWrites);
        open.put(new Key(store, partition), values);
        return values;
    }

    /** Removes the partition only if it is still this one (a new task may already have registered its own). */
    void closed(String store, int partition, LatestValues<?> values) {
        values.close();
        open.remove(new Key(store, partition), values);
    }

    /** The store partition if an active, running task here holds it open; null otherwise. */
    @SuppressWarnings("unchecked")
    public <V> LatestValues<V> active(String store, int partition) {
        return (LatestValues<V>) open.get(new Key(store, partition));
    }

    /** Registers a task's plain key-value store partition kept beside a versioned one (same guarantees). */
    <V> void openedKeyValue(String store, int partition, KeyValueStore<String, V> handle) {
        openKeyValue.put(new Key(store, partition), Objects.requireNonNull(handle, "handle"));
    }

    /** Removes the partition only if it is still this one. */
    void closedKeyValue(String store, int partition, KeyValueStore<String, ?> handle) {
        openKeyValue.remove(new Key(store, partition), handle);
    }

    /** The plain key-value store partition if an active, running task here holds it open; null otherwise. */
    @SuppressWarnings("unchecked")
    public <V> KeyValueStore<String, V> activeKeyValue(String store, int partition) {
        return (KeyValueStore<String, V>) openKeyValue.get(new Key(store, partition));
    }

    /** How many partitions of the store are open here (for tests and diagnostics). */
    public int openPartitions(String store) {
        int n = 0;
        for (Key k : open.keySet()) {
            if (k.store().equals(store)) {
                n++;
            }
        }
        for (Key k : openKeyValue.keySet()) {
            if (k.store().equals(store)) {
                n++;
            }
        }
        return n;
    }
}
