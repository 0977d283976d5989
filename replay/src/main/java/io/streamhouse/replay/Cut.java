package io.streamhouse.replay;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where a rebuild stops: per input partition, the first offset it must not apply. Taken as the last stable offsets
 * (read_committed end) when the rebuild starts, so an open transaction's records are beyond it.
 *
 * @param offsets  exclusive end per partition
 * @param earliest the log start per partition when the cut was taken (what a rebuild from 0 really starts at)
 */
public record Cut(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> earliest) {
    public Cut {
        offsets = Map.copyOf(offsets);
        earliest = Map.copyOf(earliest);
    }

    /** Offsets a rebuild has to read: at most the records before the cut (transaction markers included). */
    public long span() {
        return offsets.entrySet().stream().mapToLong(e -> e.getValue() - earliest.getOrDefault(e.getKey(), 0L)).sum();
    }

    /**
     * This cut without {@code topics}' partitions: what a group commits when those topics are read by a global store
     * (its thread keeps no group offsets, and a global store's updater applies the whole cut itself).
     */
    public Cut without(Collection<String> topics) {
        Map<TopicPartition, Long> keptOffsets = new HashMap<>(), keptEarliest = new HashMap<>();
        offsets.forEach((tp, end) -> {
            if (!topics.contains(tp.topic())) {
                keptOffsets.put(tp, end);
            }
        });
        earliest.forEach((tp, start) -> {
            if (!topics.contains(tp.topic())) {
                keptEarliest.put(tp, start);
            }
        });
        return new Cut(keptOffsets, keptEarliest);
    }

    public static Cut take(Admin admin, Collection<String> topics) throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        described.values().forEach(d -> d.partitions().forEach(p -> {
            latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest());
            earliest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.earliest());
        }));
        ListOffsetsOptions committed = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED);
        Map<TopicPartition, Long> ends = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        admin.listOffsets(latest, committed).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        Map<TopicPartition, Long> starts = new HashMap<>();
        admin.listOffsets(earliest, committed).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> starts.put(tp, info.offset()));
        return new Cut(ends, starts);
    }

    /** As one config value for {@link CutFilter}: {@code topic:partition=offset,…} (topic names hold no ':' or ','). */
    public String encode() {
        StringBuilder sb = new StringBuilder();
        offsets.forEach((tp, offset) -> sb.append(sb.isEmpty() ? "" : ",").append(tp.topic()).append(':').append(tp.partition())
                .append('=').append(offset));
        return sb.toString();
    }

    static Map<TopicPartition, Long> decode(String encoded) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        if (encoded == null || encoded.isBlank()) {
            return offsets;
        }
        for (String part : encoded.split(",")) {
            int colon = part.lastIndexOf(':'), eq = part.lastIndexOf('=');
            offsets.put(new TopicPartition(part.substring(0, colon), Integer.parseInt(part.substring(colon + 1, eq))),
                    Long.parseLong(part.substring(eq + 1)));
        }
        return offsets;
    }
}
