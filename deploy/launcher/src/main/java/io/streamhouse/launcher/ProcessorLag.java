package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Every processor's consumer lag, in records and in seconds. Records: per partition the end (last stable offset) less
 * the group's committed offset, as {@link ConsumerLag} counts them. Seconds: how old the oldest unconsumed record is,
 * i.e. now less the timestamp of the record at the committed offset, the maximum over the lagging partitions; 0 when
 * caught up. The timestamp is the record's own (its producer's create time), so a record stamped with an old event
 * time reads as old.
 *
 * <p>Cost per poll: one request for every group's offsets, one for the ends, and a fetch of at most
 * {@link #FETCH_BYTES_PER_PARTITION} per lagging partition (a partition is paused once its record is in). A timestamp
 * not read before the deadline leaves that processor's seconds unknown, its records still counted.
 */
final class ProcessorLag {

    /** A processor of the stack and the consumer group (or Streams application id) it commits under. */
    record Processor(String processor, String group) {
    }

    static final String SERVING_PROCESSOR = "api serving";
    /** What one fetch brings at most per lagging partition, of which one record is used. */
    static final int FETCH_BYTES_PER_PARTITION = 16 * 1024;

    /**
     * The stack's processors, for the parts that run: the api's two Streams apps (decisions, and serving under its
     * current application id, which {@code replay promote} changes), ingest's CDC normaliser, the lake's sink, the CEP job.
     */
    static List<Processor> ofStack(String servingApplicationId, boolean cdc, boolean lake, boolean cep) {
        List<Processor> all = new ArrayList<>();
        all.add(new Processor("api decisions", io.streamhouse.platform.KafkaAcls.DECISIONS_APP));
        all.add(new Processor(SERVING_PROCESSOR, servingApplicationId));
        if (cdc) {
            all.add(new Processor("ingest cdc", io.streamhouse.platform.KafkaAcls.CDC_APP));
        }
        if (lake) {
            all.add(new Processor("lake sink", io.streamhouse.domain.topic.ConnectNames.LAKE_GROUP));
        }
        if (cep) {
            all.add(new Processor("cep", HealthWatch.CEP_GROUP));
        }
        return List.copyOf(all);
    }

    /**
     * One processor's lag: {@code records} and {@code seconds} empty when unknown, {@code unknown} then says why.
     *
     * @param perTopic records behind per input topic (internal repartition topics included)
     */
    record Entry(String processor, String group, Optional<Long> records, Optional<Double> seconds,
                 Map<String, Long> perTopic, Optional<String> unknown) {

        static Entry unknown(Processor p, String why) {
            return new Entry(p.processor(), p.group(), Optional.empty(), Optional.empty(), Map.of(), Optional.of(why));
        }

        ObjectNode json() {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("processor", processor).put("group", group);
            if (records.isPresent()) {
                o.put("records", records.get());
            } else {
                o.putNull("records");
            }
            if (seconds.isPresent()) {
                o.put("seconds", seconds.get());
            } else {
                o.putNull("seconds");
            }
            ObjectNode topics = o.putObject("perTopic");
            perTopic.forEach(topics::put);
            unknown.ifPresent(u -> o.put("unknown", u));
            return o;
        }

        /** {@code lag api-serving: 120 records, 3.2 s behind} for {@code status}. */
        String line() {
            String what = records.map(r -> r + " records" + seconds.map(s -> String.format(java.util.Locale.ROOT, ", %.1f s behind", s))
                    .orElse(", seconds unknown")).orElse("unknown");
            return "lag " + processor + ": " + what + unknown.map(u -> " (" + u + ")").orElse("");
        }
    }

    /**
     * The entry from what was read. A partition lags when its end is past the committed offset; its age is
     * {@code now - headTimestamps[tp]}, never below 0 (a producer clock ahead of this one).
     *
     * @param headTimestamps the timestamp of the record at the committed offset, for the lagging partitions read in time
     */
    static Entry of(Processor p, Map<TopicPartition, Long> ends, Map<TopicPartition, Long> committed,
                    Map<TopicPartition, Long> headTimestamps, Instant now) {
        if (committed.isEmpty()) {
            return Entry.unknown(p, "the group has committed no offsets");
        }
        Map<String, Long> perTopic = new TreeMap<>();
        long total = 0;
        double seconds = 0;
        List<String> unread = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> c : committed.entrySet()) {
            Long end = ends.get(c.getKey());
            long behind = end == null ? 0 : Math.max(0, end - c.getValue());
            perTopic.merge(c.getKey().topic(), behind, Long::sum);
            total += behind;
            if (behind > 0) {
                Long ts = headTimestamps.get(c.getKey());
                if (ts == null || ts < 0) {
                    unread.add(c.getKey().toString());
                } else {
                    seconds = Math.max(seconds, Math.max(0, now.toEpochMilli() - ts) / 1000.0);
                }
            }
        }
        if (!unread.isEmpty()) {
            java.util.Collections.sort(unread);
            return new Entry(p.processor(), p.group(), Optional.of(total), Optional.empty(), perTopic,
                    Optional.of("no record read in time at the committed offset of " + String.join(", ", unread.subList(0, Math.min(3, unread.size())))
                            + (unread.size() > 3 ? " and " + (unread.size() - 3) + " more partitions" : "")));
        }
        return new Entry(p.processor(), p.group(), Optional.of(total), Optional.of(seconds), perTopic, Optional.empty());
    }

    /** Lagging partitions and where their oldest unconsumed record is: end past committed. */
    static Map<TopicPartition, Long> lagging(Map<TopicPartition, Long> ends, Map<TopicPartition, Long> committed) {
        Map<TopicPartition, Long> lagging = new HashMap<>();
        committed.forEach((tp, offset) -> {
            Long end = ends.get(tp);
            if (end != null && end > offset) {
                lagging.put(tp, offset);
            }
        });
        return lagging;
    }

    /** The consumer's settings beyond security: no group, read_committed, the first batch of a partition only. */
    static Map<String, Object> consumerSettings() {
        Map<String, Object> c = new HashMap<>();
        c.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        c.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        c.put("enable.auto.commit", "false");
        c.put("isolation.level", "read_committed");
        // Small, not 1: a broker returns an oversized first batch for the first partition of a fetch only, so 1 byte
        // would take one round trip per lagging partition.
        c.put("max.partition.fetch.bytes", Integer.toString(FETCH_BYTES_PER_PARTITION));
        c.put("client.id", "streamhouse-health-lag");
        c.put("request.timeout.ms", "3000");
        c.put("default.api.timeout.ms", "3000");
        return c;
    }

    /** Reads every processor's lag; an entry whose group could not be read in time is unknown, the others stand. */
    static List<Entry> fetch(Admin admin, org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer, List<Processor> processors, Instant now,
                             Instant deadline) throws InterruptedException {
        Map<String, ListConsumerGroupOffsetsSpec> specs = new LinkedHashMap<>();
        processors.forEach(p -> specs.put(p.group(), new ListConsumerGroupOffsetsSpec()));
        var result = admin.listConsumerGroupOffsets(specs);
        Map<String, Map<TopicPartition, Long>> committed = new HashMap<>();
        Map<String, String> failed = new HashMap<>();
        for (Processor p : processors) {
            try {
                Map<TopicPartition, Long> offsets = new HashMap<>();
                Map<TopicPartition, OffsetAndMetadata> read = result.partitionsToOffsetAndMetadata(p.group())
                        .get(remaining(deadline), TimeUnit.MILLISECONDS);
                read.forEach((tp, om) -> {
                    if (om != null) {
                        offsets.put(tp, om.offset());
                    }
                });
                committed.put(p.group(), offsets);
            } catch (ExecutionException e) {
                failed.put(p.group(), "its offsets could not be read: " + (e.getCause() == null ? e : e.getCause()).getMessage());
            } catch (TimeoutException e) {
                failed.put(p.group(), "its offsets were not read in time");
            }
        }
        Set<TopicPartition> all = new HashSet<>();
        committed.values().forEach(m -> all.addAll(m.keySet()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        if (!all.isEmpty()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            all.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            try {
                admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                        .get(remaining(deadline), TimeUnit.MILLISECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
            } catch (ExecutionException | TimeoutException e) {
                List<Entry> unknown = new ArrayList<>();
                processors.forEach(p -> unknown.add(Entry.unknown(p, failed.getOrDefault(p.group(),
                        "the ends of its partitions were not read in time"))));
                return unknown;
            }
        }
        // Every group's committed offset of each lagging partition: two groups reading one topic are at different offsets.
        Map<TopicPartition, NavigableSet<Long>> heads = new HashMap<>();
        committed.values().forEach(c -> lagging(ends, c).forEach((tp, offset) -> heads.computeIfAbsent(tp, k -> new TreeSet<>()).add(offset)));
        Map<TopicPartition, NavigableMap<Long, Long>> timestamps = new HashMap<>();
        Map<TopicPartition, Long> markersFrom = heads.isEmpty() ? Map.of() : headTimestamps(consumer, heads, ends, deadline, timestamps);
        List<Entry> entries = new ArrayList<>();
        for (Processor p : processors) {
            if (failed.containsKey(p.group())) {
                entries.add(Entry.unknown(p, failed.get(p.group())));
            } else {
                Map<TopicPartition, Long> own = new HashMap<>();
                Map<TopicPartition, Long> ownEnds = new HashMap<>(ends);
                lagging(ends, committed.get(p.group())).forEach((tp, offset) -> {
                    Long ts = timestamps.getOrDefault(tp, new TreeMap<>()).get(offset);
                    if (ts != null) {
                        own.put(tp, ts);
                    } else if (markersFrom.containsKey(tp) && offset >= markersFrom.get(tp)) {
                        // Past this group's offset there were only transaction markers or aborted records: nothing to consume.
                        ownEnds.put(tp, offset);
                    }
                });
                entries.add(of(p, ownEnds, committed.get(p.group()), own, now));
            }
        }
        return entries;
    }

    /**
     * Puts into {@code found} the timestamp of the record at each wanted offset of {@code at} (or of the first committed
     * one after it), as many as the deadline allows, reading each partition once from its lowest wanted offset; returns,
     * per partition whose read_committed position reached its end with wanted offsets left, the lowest of them: past
     * it there were only transaction markers or aborted records.
     */
    static Map<TopicPartition, Long> headTimestamps(org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer,
                                                    Map<TopicPartition, NavigableSet<Long>> at, Map<TopicPartition, Long> ends,
                                                    Instant deadline, Map<TopicPartition, NavigableMap<Long, Long>> found) {
        Map<TopicPartition, Long> markersFrom = new HashMap<>();
        Set<TopicPartition> done = new HashSet<>();
        consumer.assign(at.keySet());
        at.forEach((tp, offsets) -> consumer.seek(tp, offsets.first()));
        try {
            while (done.size() < at.size() && remaining(deadline) > 0) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(Math.min(500, remaining(deadline))))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (done.contains(tp) || !at.containsKey(tp)) {
                        continue;
                    }
                    NavigableMap<Long, Long> got = found.computeIfAbsent(tp, k -> new TreeMap<>());
                    for (long wanted : at.get(tp).headSet(r.offset(), true)) {
                        got.putIfAbsent(wanted, r.timestamp());
                    }
                    if (got.size() == at.get(tp).size()) {
                        done.add(tp);
                        consumer.pause(List.of(tp));
                    } else {
                        // The next wanted offset may be far ahead (another group): skip there rather than read up to it.
                        long next = at.get(tp).higher(r.offset());
                        if (next > r.offset() + 1) {
                            consumer.seek(tp, next);
                        }
                    }
                }
                for (TopicPartition tp : at.keySet()) {
                    if (!done.contains(tp) && positionReached(consumer, tp, ends.get(tp))) {
                        NavigableMap<Long, Long> got = found.getOrDefault(tp, new TreeMap<>());
                        at.get(tp).stream().filter(o -> !got.containsKey(o)).findFirst().ifPresent(o -> markersFrom.put(tp, o));
                        done.add(tp);
                        consumer.pause(List.of(tp));
                    }
                }
            }
        } finally {
            consumer.assign(List.of());
        }
        return markersFrom;
    }

    /** Whether the consumer's position on {@code tp} is at {@code end}; false while a seek is not validated yet. */
    private static boolean positionReached(org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer, TopicPartition tp, long end) {
        try {
            return consumer.position(tp, Duration.ZERO) >= end;
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return false;
        }
    }

    private static long remaining(Instant deadline) {
        return Math.max(0, Duration.between(Instant.now(), deadline).toMillis());
    }

    private ProcessorLag() {
    }
}
