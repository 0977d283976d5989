package io.streamhouse.api.serving;

import io.streamhouse.projections.serving.OpenStores;
import io.streamhouse.projections.serving.ServingStores;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.StreamsNotStartedException;
import org.apache.kafka.streams.errors.StreamsStoppedException;
import org.apache.kafka.streams.state.HostInfo;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Answers a key lookup on a serving store from wherever the key lives, with no framework: the Quarkus resources
 * and the two-instance test use it alike.
 *
 * <ol>
 *   <li>The default partitioner names the key's partition; Streams metadata names that partition's active and
 *       standby hosts. The metadata of a store is read once and reused for up to a second, and dropped at every
 *       state change of the Streams client (a rebalance) and whenever the named owner does not answer.</li>
 *   <li>Active here: read the local store (active only; the latest value straight from the store the running task
 *       holds open, {@link OpenStores}, anything else by an IQv2 query). Active elsewhere: forward to that instance's
 *       internal endpoint, which answers from its local store.</li>
 *   <li>The owner cannot answer (killed, or the partition is moving in a rebalance): answer from a standby replica,
 *       here or on another instance, marked {@code stale} with the replica's lag, instead of failing.</li>
 *   <li>No metadata (rebalancing): any local replica of the key's partition, marked stale.</li>
 * </ol>
 * A forwarded request is answered locally by the receiver and never forwarded again, so requests cannot loop.
 */
public final class KeyRouter {
    public static final String INTERNAL_STATE_PATH = "/internal/v1/state/";
    public static final String INTERNAL_FEED_PATH = "/internal/v1/feed/";
    private static final Serializer<String> KEYS = Serdes.String().serializer();

    private final KafkaStreams streams;
    private final HostInfo self;
    private final Forwarder forwarder;
    private final Map<String, Integer> partitionsByStore;
    private final LocalReads reads;

    /**
     * @param openStores        the registry the topology of {@code streams} was built with: a lookup of the latest
     *                          value on an active partition here reads that store directly (see {@link OpenStores});
     *                          standby and {@code asOf} reads go through IQv2
     * @param partitionsByStore partitions of each store (those of its input topics), to find a key's partition
     *                          when Streams has no metadata during a rebalance
     */
    public KeyRouter(KafkaStreams streams, OpenStores openStores, HostInfo self, Forwarder forwarder,
                     Map<String, Integer> partitionsByStore) {
        this.streams = Objects.requireNonNull(streams, "streams");
        this.self = Objects.requireNonNull(self, "self");
        this.forwarder = Objects.requireNonNull(forwarder, "forwarder");
        this.partitionsByStore = Map.copyOf(partitionsByStore);
        // what application.server says, not HostInfo{...}
        this.reads = new LocalReads(streams, Objects.requireNonNull(openStores, "openStores"), self.host() + ":" + self.port());
        if (streams.state() == KafkaStreams.State.CREATED) {
            // Partition owners change only in a rebalance, which changes the client's state: drop the cached owners.
            streams.setStateListener((newState, oldState) -> invalidateMetadata());
        }
    }

    public HostInfo self() {
        return self;
    }

    public KafkaStreams streams() {
        return streams;
    }

    /** How this instance asks the others (their internal endpoints, with the internal token). */
    public Forwarder forwarder() {
        return forwarder;
    }

    /**
     * The other instances, as the serving application's metadata lists them (every api instance runs it): whom to ask
     * for state whose own application names no hosts (the decision application's card activity). Empty while Streams
     * has no metadata.
     */
    public List<HostInfo> peers() {
        try {
            return streams.metadataForAllStreamsClients().stream().map(StreamsMetadata::hostInfo)
                    .filter(h -> !isUnknown(h) && !h.equals(self)).distinct().toList();
        } catch (StreamsNotStartedException | StreamsStoppedException | IllegalStateException e) {
            return List.of();
        }
    }

    /** The key's state now ({@code asOf} null) or as of an instant, from wherever it is held. */
    public <V extends SpecificRecord> Lookup<V> lookup(String store, String key, Instant asOf, Class<V> type) {
        Owners owners;
        try {
            owners = owners(store);
        } catch (StreamsNotStartedException | StreamsStoppedException | IllegalStateException e) {
            return new Lookup.Unavailable<>("the serving projections are " + streams.state());
        }
        int partition = partitionOf(store, key);
        HostInfo active = owners == null ? null : owners.active().get(partition);
        List<String> tried = new ArrayList<>();
        if (!isUnknown(active)) {
            if (active.equals(self)) {
                Lookup<V> local = local(store, key, partition, asOf, true);
                if (!(local instanceof Lookup.Unavailable)) {
                    return local;
                }
                tried.add("here (" + ((Lookup.Unavailable<V>) local).reason() + ")");
            } else {
                Lookup<V> remote = forward(active, store, key, asOf, type);
                if (!(remote instanceof Lookup.Unavailable)) {
                    return remote;
                }
                tried.add(active + " (" + ((Lookup.Unavailable<V>) remote).reason() + ")");
            }
            // The owner did not answer: the cached metadata may predate a rebalance; read it afresh next time.
            invalidateMetadata();
        }
        // The owner did not answer: fall back to a replica, saying it is stale.
        Set<HostInfo> standbys = new LinkedHashSet<>(owners == null ? List.of() : owners.standbys().getOrDefault(partition, List.of()));
        Lookup<V> here = local(store, key, partition, asOf, false);
        if (!(here instanceof Lookup.Unavailable)) {
            return here;
        }
        tried.add("replica here (" + ((Lookup.Unavailable<V>) here).reason() + ")");
        standbys.remove(self);
        for (HostInfo standby : standbys) {
            Lookup<V> remote = forward(standby, store, key, asOf, type);
            if (!(remote instanceof Lookup.Unavailable)) {
                return remote;
            }
            tried.add("standby " + standby);
        }
        return new Lookup.Unavailable<>("no replica of " + store + " partition " + partition + " answered: " + String.join("; ", tried));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Which instance holds which partition of a store: Streams metadata, read once and reused.

    /** Hosts of each partition of one store: its active host and its standby hosts. */
    record Owners(long readAtNanos, Map<Integer, HostInfo> active, Map<Integer, List<HostInfo>> standbys) {
    }

    /** Reused at most this long, and dropped at every state change of the Streams client (a rebalance). */
    static final long METADATA_TTL_NANOS = 1_000_000_000L;
    private final Map<String, Owners> owners = new java.util.concurrent.ConcurrentHashMap<>();

    /** Forgets the cached metadata; the next lookup reads it from Streams again. */
    public void invalidateMetadata() {
        owners.clear();
    }

    /**
     * The store's partition owners from Streams metadata, reused for up to a second: asking Streams for each key
     * ({@code queryMetadataForKey}) was a quarter of a lookup's cost (JFR), while the answer changes only in a
     * rebalance, which clears this cache through the state listener. Null while Streams has no metadata.
     */
    private Owners owners(String store) {
        long now = System.nanoTime();
        Owners cached = owners.get(store);
        if (cached != null && now - cached.readAtNanos() < METADATA_TTL_NANOS) {
            return cached;
        }
        List<String> inputs = ServingStores.INPUTS.getOrDefault(store, List.of());
        Map<Integer, HostInfo> active = new HashMap<>();
        Map<Integer, List<HostInfo>> standbys = new HashMap<>();
        for (StreamsMetadata m : streams.streamsMetadataForStore(store)) {
            if (isUnknown(m.hostInfo())) {
                continue;
            }
            for (int p : partitionsOf(inputs, m.topicPartitions())) {
                active.put(p, m.hostInfo());
            }
            if (m.standbyStateStoreNames().contains(store)) {
                for (int p : partitionsOf(inputs, m.standbyTopicPartitions())) {
                    List<HostInfo> hosts = standbys.computeIfAbsent(p, x -> new ArrayList<>());
                    if (!hosts.contains(m.hostInfo())) {
                        hosts.add(m.hostInfo());
                    }
                }
            }
        }
        if (active.isEmpty() && standbys.isEmpty()) {
            owners.remove(store);
            return null; // no metadata (rebalancing, or not started): ask again next time
        }
        Owners fresh = new Owners(now, Map.copyOf(active), Map.copyOf(standbys));
        owners.put(store, fresh);
        return fresh;
    }

    /**
     * The partitions of a store's inputs among a host's topic partitions: a host's metadata lists the partitions of
     * all its tasks, and partition 3 of another sub-topology's input may be held elsewhere than the store's.
     */
    private static Set<Integer> partitionsOf(List<String> inputs, Set<org.apache.kafka.common.TopicPartition> held) {
        Set<Integer> partitions = new TreeSet<>();
        for (var tp : held) {
            if (isInputOf(inputs, tp.topic())) {
                partitions.add(tp.partition());
            }
        }
        return partitions;
    }

    private static boolean isInputOf(List<String> inputs, String topic) {
        for (String input : inputs) {
            if (topic.equals(input) || topic.endsWith("-" + input)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The key from this instance's own replica of its partition, never forwarded.
     *
     * @param activeOnly true: only an active task answers; false: the active task if here, else a standby (stale)
     */
    public <V> Lookup<V> local(String store, String key, int partition, Instant asOf, boolean activeOnly) {
        return reads.key(store, key, partition, asOf, activeOnly);
    }

    /** Answer for the internal endpoint: this instance's replica (active preferred), keyed by the store's partitioner. */
    public <V> Lookup<V> localForForwarded(String store, String key, Instant asOf) {
        return local(store, key, partitionOf(store, key), asOf, false);
    }

    private <V extends SpecificRecord> Lookup<V> forward(HostInfo host, String store, String key, Instant asOf, Class<V> type) {
        String path = INTERNAL_STATE_PATH + store + "/" + URLEncoder.encode(key, StandardCharsets.UTF_8)
                + (asOf == null ? "" : "?asOf=" + asOf);
        return forwarder.get(host, path)
                .<Lookup<V>>map(body -> StateCodec.decode(body, type))
                .orElseGet(() -> new Lookup.Unavailable<>("did not answer"));
    }

    /** The partition the default partitioner puts this key in (what Streams metadata would say). */
    public int partitionOf(String store, String key) {
        Integer partitions = partitionsByStore.get(store);
        if (partitions == null) {
            throw new IllegalArgumentException("unknown store " + store);
        }
        return Utils.toPositive(Utils.murmur2(KEYS.serialize(null, key))) % partitions;
    }

    private static boolean isUnknown(HostInfo host) {
        return host == null || host.port() < 0 || "unavailable".equals(host.host());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The alert feed: scatter over the instances holding its partitions, gather the newest entries.

    /** A page of the newest feed entries strictly below {@code beforeKey}, with the partitions nobody answered for. */
    public <V extends SpecificRecord> StateCodec.Page<V> feed(String store, String beforeKey, int limit, Class<V> type) {
        int partitions = partitionsByStore.get(store);
        Map<HostInfo, Set<Integer>> byHost = new HashMap<>();
        Set<Integer> unowned = new TreeSet<>();
        for (int p = 0; p < partitions; p++) {
            unowned.add(p);
        }
        try {
            byHost = feedHosts(streams.streamsMetadataForStore(store), ServingStores.INPUTS.getOrDefault(store, List.of()), unowned);
        } catch (StreamsNotStartedException | StreamsStoppedException | IllegalStateException e) {
            // no metadata: whatever is local
        }
        List<Map.Entry<String, V>> entries = new ArrayList<>();
        List<Integer> missing = new ArrayList<>(unowned);
        for (var e : byHost.entrySet()) {
            StateCodec.Page<V> page;
            if (e.getKey().equals(self)) {
                page = localFeed(store, beforeKey, limit, e.getValue());
            } else {
                String path = INTERNAL_FEED_PATH + store + "?limit=" + limit + "&partitions="
                        + String.join(",", e.getValue().stream().map(String::valueOf).toList())
                        + (beforeKey == null ? "" : "&before=" + URLEncoder.encode(beforeKey, StandardCharsets.UTF_8));
                page = forwarder.get(e.getKey(), path).map(b -> StateCodec.decodePage(b, type))
                        .orElseGet(() -> localFeed(store, beforeKey, limit, e.getValue()));
            }
            entries.addAll(page.entries());
            missing.addAll(page.missingPartitions());
        }
        if (byHost.isEmpty()) {
            StateCodec.Page<V> page = localFeed(store, beforeKey, limit, unowned);
            entries.addAll(page.entries());
            missing = page.missingPartitions();
        }
        entries.sort(Map.Entry.<String, V>comparingByKey(Comparator.reverseOrder()));
        List<Integer> sortedMissing = missing.stream().distinct().sorted().toList();
        return new StateCodec.Page<>(entries.size() > limit ? List.copyOf(entries.subList(0, limit)) : entries, sortedMissing);
    }

    /**
     * Which host to ask for which of the store's partitions: the active owner of each ({@link #partitionsOf}). The
     * partitions assigned are removed from {@code unowned}; what is left there has no active owner.
     */
    static Map<HostInfo, Set<Integer>> feedHosts(Collection<StreamsMetadata> metadata, List<String> inputs, Set<Integer> unowned) {
        Map<HostInfo, Set<Integer>> byHost = new HashMap<>();
        for (StreamsMetadata m : metadata) {
            for (int p : partitionsOf(inputs, m.topicPartitions())) {
                if (unowned.remove(p)) {
                    byHost.computeIfAbsent(m.hostInfo(), h -> new TreeSet<>()).add(p);
                }
            }
        }
        return byHost;
    }

    /** The newest entries below {@code beforeKey} of this instance's replicas (active preferred) of these partitions. */
    public <V> StateCodec.Page<V> localFeed(String store, String beforeKey, int limit, Set<Integer> partitions) {
        return reads.feed(store, beforeKey, limit, partitions);
    }
}
