package io.streamhouse.api.serving;

import io.streamhouse.projections.serving.ServingStores;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lag of a store partition behind the log head. Active: the main consumer's {@code records-lag} of the store's input
 * partitions (records between the consumer position and the last stable offset, as of the last fetch; an idle,
 * caught-up partition reports 0). Standby: the changelog lag Streams reports for the local replica. The metric
 * index is rebuilt when a partition is not found in it, since tasks move between instances.
 *
 * <p>A reading is kept for {@link #TTL_MS} ms per partition and reused by the lookups meanwhile: reading the metrics
 * (and above all {@code allLocalStorePartitionLags}, which visits every local store) on each lookup cost more than
 * the store read. The answer says how old the reading is ({@link Freshness#lagAgeMs()}).
 */
final class PartitionLags {
    /** How long one lag reading is reused. */
    static final long TTL_MS = 250;
    private static final long TTL_NANOS = TTL_MS * 1_000_000L;
    private static final java.util.Set<String> INPUTS = ServingStores.INPUTS.values().stream()
            .flatMap(List::stream).collect(java.util.stream.Collectors.toUnmodifiableSet());
    private final KafkaStreams streams;
    private final Map<String, List<Metric>> recordsLag = new ConcurrentHashMap<>();
    private final Map<String, Reading> readings = new ConcurrentHashMap<>();

    /** A lag figure (null: unknown) and when it was read ({@link System#nanoTime()}). */
    record Reading(Long records, long readAtNanos) {
        /** @return the reading's age in ms at {@code nowNanos}, or null when the lag is unknown */
        Long ageMs(long nowNanos) {
            return records == null ? null : Math.max(0, (nowNanos - readAtNanos) / 1_000_000L);
        }
    }

    PartitionLags(KafkaStreams streams) {
        this.streams = streams;
    }

    /** Summed lag over the store's inputs at this partition (null records when no metric exists yet). */
    Reading active(String store, int partition) {
        return cached("a|" + store + "|" + partition, () -> readActive(store, partition));
    }

    /** The local replica's changelog lag (null records when this instance holds no replica of the partition). */
    Reading standby(String store, int partition) {
        return cached("s|" + store + "|" + partition, () -> readStandby(store, partition));
    }

    private Reading cached(String key, java.util.function.Supplier<Long> read) {
        long now = System.nanoTime();
        Reading r = readings.get(key);
        if (r == null || now - r.readAtNanos() > TTL_NANOS) {
            r = new Reading(read.get(), now);
            readings.put(key, r);
        }
        return r;
    }

    private Long readActive(String store, int partition) {
        List<String> inputs = ServingStores.INPUTS.getOrDefault(store, List.of());
        long sum = 0;
        boolean any = false;
        for (String input : inputs) {
            String id = input + "#" + partition;
            List<Metric> metrics = recordsLag.get(id);
            if ((metrics == null || metrics.isEmpty()) && System.nanoTime() - lastIndexed > REINDEX_EVERY_NANOS) {
                reindex();
                metrics = recordsLag.get(id);
            }
            if (metrics == null) {
                continue;
            }
            for (Metric m : metrics) {
                Object v = m.metricValue();
                if (v instanceof Number n && !Double.isNaN(n.doubleValue())) {
                    sum += Math.max(0, (long) n.doubleValue());
                    any = true;
                }
            }
        }
        return any ? sum : null;
    }

    private Long readStandby(String store, int partition) {
        Map<Integer, LagInfo> lags = streams.allLocalStorePartitionLags().get(store);
        LagInfo lag = lags == null ? null : lags.get(partition);
        return lag == null ? null : lag.offsetLag();
    }

    private static final long REINDEX_EVERY_NANOS = 1_000_000_000L;
    private volatile long lastIndexed = System.nanoTime() - REINDEX_EVERY_NANOS - 1;

    private synchronized void reindex() {
        lastIndexed = System.nanoTime();
        Map<String, List<Metric>> fresh = new ConcurrentHashMap<>();
        Map<String, List<Metric>> legacy = new java.util.HashMap<>();
        for (var e : streams.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (!"records-lag".equals(name.name()) || !name.group().equals("consumer-fetch-manager-metrics")) {
                continue;
            }
            String topic = name.tags().get("topic");
            String partition = name.tags().get("partition");
            if (topic == null || partition == null) {
                continue;
            }
            for (String input : INPUTS) {
                if (topic.equals(input) || topic.endsWith("-" + input)) {
                    fresh.computeIfAbsent(input + "#" + partition, k -> new ArrayList<>()).add(e.getValue());
                } else if (topic.equals(input.replace('.', '_'))) {
                    // Kafka also registers each partition metric under the deprecated topic tag with '.' as '_':
                    // use it only where the exact tag is missing, or the lag would be counted twice.
                    legacy.computeIfAbsent(input + "#" + partition, k -> new ArrayList<>()).add(e.getValue());
                }
            }
        }
        legacy.forEach(fresh::putIfAbsent);
        recordsLag.clear();
        recordsLag.putAll(fresh);
    }
}
