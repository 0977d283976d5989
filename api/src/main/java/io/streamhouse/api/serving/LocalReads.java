package io.streamhouse.api.serving;

import io.streamhouse.domain.state.ParcelScanEntry;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.projections.serving.LatestValues;
import io.streamhouse.projections.serving.OpenStores;
import io.streamhouse.projections.serving.ParcelScans;
import io.streamhouse.projections.serving.ServingStores;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.StreamsNotStartedException;
import org.apache.kafka.streams.errors.StreamsStoppedException;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads of this instance's own replicas of the serving stores, never forwarded: the latest value straight from the
 * store a running active task holds open ({@link OpenStores}), anything else (a standby, {@code asOf}, a task being
 * moved) by an IQv2 query; a parcel joined with its recent scans; a page of the alert feed. Each answer carries its
 * freshness (lag, stale or not, which instance served it).
 */
final class LocalReads {
    private final KafkaStreams streams;
    private final OpenStores openStores;
    private final PartitionLags lags;
    private final String servedBy;
    /** Parcels joined with their scans, kept by the stored state they were joined to (see {@link Joined}). */
    private final Map<String, Joined> joined = new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_JOINED = 10_000;

    LocalReads(KafkaStreams streams, OpenStores openStores, String servedBy) {
        this.streams = streams;
        this.openStores = openStores;
        this.lags = new PartitionLags(streams);
        this.servedBy = servedBy;
    }

    /**
     * The key from this instance's own replica of its partition, never forwarded.
     *
     * @param activeOnly true: only an active task answers; false: the active task if here, else a standby (stale)
     */
    <V> Lookup<V> key(String store, String key, int partition, Instant asOf, boolean activeOnly) {
        Lookup<V> state = localState(store, key, partition, asOf, activeOnly);
        return ServingStores.PARCEL_TRACKING.equals(store) ? withScans(state, key, partition, asOf, activeOnly) : state;
    }

    /**
     * A parcel's state with its recent scans, which live in their own store in the same task ({@link ParcelScans}),
     * so on this same instance: read from the open store while its task runs here, else through Streams (a standby,
     * or a task being moved). The two reads are not one snapshot: a scan being applied at that moment may show in
     * one and not yet in the other.
     */
    @SuppressWarnings("unchecked")
    private <V> Lookup<V> withScans(Lookup<V> state, String parcelId, int partition, Instant asOf, boolean activeOnly) {
        if (!(state instanceof Lookup.Found<V> found)) {
            return state;
        }
        Joined kept = asOf == null ? joined.get(parcelId) : null;
        if (kept != null && kept.stored() == found.value()) {
            return new Lookup.Found<>((V) kept.value(), found.version(), found.validTo(), found.freshness());
        }
        List<KeyValue<String, ParcelScanEntry>> scans = scansFromOpenStore(parcelId, partition);
        if (scans == null) {
            RangeQuery<String, ParcelScanEntry> query = RangeQuery.withRange(ParcelScans.from(parcelId), ParcelScans.to(parcelId));
            StateQueryRequest<KeyValueIterator<String, ParcelScanEntry>> request = StateQueryRequest.inStore(ServingStores.PARCEL_SCANS)
                    .withQuery(query).withPartitions(Set.of(partition));
            QueryResult<KeyValueIterator<String, ParcelScanEntry>> result;
            try {
                result = streams.query(activeOnly && !found.freshness().stale() ? request.requireActive() : request)
                        .getPartitionResults().get(partition);
            } catch (StreamsNotStartedException | StreamsStoppedException e) {
                return new Lookup.Unavailable<>("Kafka Streams is " + streams.state());
            }
            if (result == null || result.isFailure()) {
                return new Lookup.Unavailable<>("the parcel's scans could not be read here: "
                        + (result == null ? "partition " + partition + " is not held here" : result.getFailureMessage()));
            }
            scans = new ArrayList<>();
            try (KeyValueIterator<String, ParcelScanEntry> range = result.getResult()) {
                range.forEachRemaining(scans::add);
            }
        }
        ParcelTracking parcel = ParcelScans.withHistory((ParcelTracking) found.value(), parcelId, scans.iterator(), asOf);
        if (asOf == null) {
            if (joined.size() >= MAX_JOINED) {
                joined.clear();
            }
            joined.put(parcelId, new Joined(found.value(), parcel));
        }
        return new Lookup.Found<>((V) parcel, found.version(), found.validTo(), found.freshness());
    }

    /**
     * Parcels joined with their scans, by the stored state they were joined to. The open stores keep a looked-up key's
     * latest state as one object until the fold replaces it ({@code LatestValues}), and the fold writes a scan's entry
     * before the state that counts it, so while that object is the latest the join stands; any other object (a new
     * version, a state decoded afresh) is joined again. Saves the range read on repeated lookups of a key.
     */
    private record Joined(Object stored, ParcelTracking value) {
    }

    /** The parcel's scans from the store an active, running task here holds open; null if none does. */
    private List<KeyValue<String, ParcelScanEntry>> scansFromOpenStore(String parcelId, int partition) {
        KeyValueStore<String, ParcelScanEntry> open = openStores.activeKeyValue(ServingStores.PARCEL_SCANS, partition);
        if (open == null) {
            return null;
        }
        List<KeyValue<String, ParcelScanEntry>> scans = new ArrayList<>(ParcelScans.KEPT + ParcelScans.TRIM_EVERY);
        try (KeyValueIterator<String, ParcelScanEntry> range = open.range(ParcelScans.from(parcelId), ParcelScans.to(parcelId))) {
            range.forEachRemaining(scans::add);
            return scans;
        } catch (RuntimeException e) {
            return null; // closed in between (a rebalance): ask Streams
        }
    }

    private <V> Lookup<V> localState(String store, String key, int partition, Instant asOf, boolean activeOnly) {
        if (asOf == null) {
            Lookup<V> direct = fromOpenStore(store, key, partition);
            if (direct != null) {
                return direct;
            }
        }
        VersionedKeyQuery<String, V> query = asOf == null ? VersionedKeyQuery.withKey(key) : VersionedKeyQuery.<String, V>withKey(key).asOf(asOf);
        StateQueryRequest<VersionedRecord<V>> active = StateQueryRequest.inStore(store).withQuery(query)
                .withPartitions(Set.of(partition)).requireActive();
        QueryResult<VersionedRecord<V>> result;
        boolean stale;
        try {
            result = streams.query(active).getPartitionResults().get(partition);
            stale = streams.state() != KafkaStreams.State.RUNNING;
            if ((result == null || result.isFailure()) && !activeOnly) {
                result = streams.query(StateQueryRequest.inStore(store).withQuery(query).withPartitions(Set.of(partition)))
                        .getPartitionResults().get(partition);
                stale = true;
            }
        } catch (StreamsNotStartedException | StreamsStoppedException e) {
            return new Lookup.Unavailable<>("Kafka Streams is " + streams.state());
        }
        if (result == null) {
            return new Lookup.Unavailable<>("partition " + partition + " is not held here");
        }
        if (result.isFailure()) {
            return new Lookup.Unavailable<>(result.getFailureReason() + ": " + result.getFailureMessage());
        }
        return answer(result.getResult(), store, partition, stale);
    }

    /** The latest value from the store an active, running task here holds open; null if none does (see {@link OpenStores}). */
    private <V> Lookup<V> fromOpenStore(String store, String key, int partition) {
        LatestValues<V> open = openStores.active(store, partition);
        if (open == null) {
            return null;
        }
        VersionedRecord<V> latest;
        try {
            latest = open.get(key);
        } catch (RuntimeException e) {
            return null; // closed in between (a rebalance): ask Streams, which knows what is here now
        }
        return answer(latest, store, partition, streams.state() != KafkaStreams.State.RUNNING);
    }

    private <V> Lookup<V> answer(VersionedRecord<V> record, String store, int partition, boolean stale) {
        PartitionLags.Reading lag = stale ? lags.standby(store, partition) : lags.active(store, partition);
        Long lagAge = lag.ageMs(System.nanoTime());
        if (record == null) {
            return new Lookup.NotFound<>(new Freshness(null, lag.records(), lagAge, stale, servedBy));
        }
        Instant version = Instant.ofEpochMilli(record.timestamp());
        Instant validTo = record.validTo().isPresent() ? Instant.ofEpochMilli(record.validTo().get()) : null;
        return new Lookup.Found<>(record.value(), version, validTo, new Freshness(version, lag.records(), lagAge, stale, servedBy));
    }

    /** The newest entries below {@code beforeKey} of this instance's replicas (active preferred) of these partitions. */
    <V> StateCodec.Page<V> feed(String store, String beforeKey, int limit, Set<Integer> partitions) {
        List<Map.Entry<String, V>> entries = new ArrayList<>();
        List<Integer> missing = new ArrayList<>();
        RangeQuery<String, V> range = (beforeKey == null ? RangeQuery.<String, V>withNoBounds()
                : RangeQuery.<String, V>withUpperBound(beforeKey)).withDescendingKeys();
        StateQueryResult<KeyValueIterator<String, V>> result;
        try {
            result = streams.query(StateQueryRequest.inStore(store).withQuery(range).withPartitions(partitions));
        } catch (StreamsNotStartedException | StreamsStoppedException e) {
            return new StateCodec.Page<>(List.of(), List.copyOf(partitions));
        }
        for (int p : partitions) {
            QueryResult<KeyValueIterator<String, V>> r = result.getPartitionResults().get(p);
            if (r == null || r.isFailure()) {
                missing.add(p);
                continue;
            }
            try (KeyValueIterator<String, V> it = r.getResult()) {
                int n = 0;
                while (it.hasNext() && n < limit) {
                    var kv = it.next();
                    if (beforeKey != null && kv.key.compareTo(beforeKey) >= 0) {
                        continue;
                    }
                    entries.add(Map.entry(kv.key, kv.value));
                    n++;
                }
            }
        }
        return new StateCodec.Page<>(entries, missing);
    }
}
