package io.streamhouse.launcher;

import io.streamhouse.control.HealthCheck;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * How far the CEP job is behind the end of its input topics: per partition, the end (last stable offset, what a
 * read_committed reader can reach) less the offset its consumer group committed, summed per topic.
 *
 * <p>Why the group's committed offsets and not Flink's source metrics ({@code pendingRecords}): the job commits them when
 * a checkpoint completes, together with its exactly-once alerts, so the lag counts the records whose alerts are not
 * yet visible; and it stays true while the job is restarting or down — the source metrics vanish with the job's tasks
 * and start again at each restart, which is exactly when the lag matters. The price: it moves in steps of one
 * checkpoint interval. Partitions the group never committed (before the job's first checkpoint) are not counted.
 */
final class ConsumerLag {
    static final String CHECK = "cep lag";

    /** Records behind, in all and per topic. */
    record Lag(long total, Map<String, Long> perTopic) {

        HealthCheck check() {
            return new HealthCheck(CHECK, CepProcess.COMPONENT, HealthCheck.Verdict.OK, line());
        }

        /** {@code cep lag: 1234 records behind the end of its inputs (payments.transactions.requested 1200, shop.orders 34)}. */
        String line() {
            if (perTopic.isEmpty()) {
                return CHECK + ": unknown (the job has committed no offsets yet)";
            }
            String behind = perTopic.entrySet().stream().filter(e -> e.getValue() > 0)
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
            return CHECK + ": " + total + " records behind the end of its inputs" + (behind.isEmpty() ? "" : " (" + behind + ")");
        }
    }

    /** The lag of the committed partitions; an end offset below the committed one (a recreated topic) counts as 0. */
    static Lag of(Map<TopicPartition, Long> ends, Map<TopicPartition, Long> committed) {
        Map<String, Long> perTopic = new TreeMap<>();
        long total = 0;
        for (Map.Entry<TopicPartition, Long> c : committed.entrySet()) {
            Long end = ends.get(c.getKey());
            long behind = end == null ? 0 : Math.max(0, end - c.getValue());
            perTopic.merge(c.getKey().topic(), behind, Long::sum);
            total += behind;
        }
        return new Lag(total, perTopic);
    }

    /** Two admin requests: the group's committed offsets, then the ends of those partitions. */
    static Lag fetch(Admin admin, String group) throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(5, TimeUnit.SECONDS);
        Map<TopicPartition, Long> committed = new HashMap<>();
        offsets.forEach((tp, om) -> {
            if (om != null) {
                committed.put(tp, om.offset());
            }
        });
        if (committed.isEmpty()) {
            return of(Map.of(), Map.of());
        }
        Map<TopicPartition, OffsetSpec> latest = committed.keySet().stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(5, TimeUnit.SECONDS)
                .forEach((tp, info) -> ends.put(tp, info.offset()));
        return of(ends, committed);
    }

    private ConsumerLag() {
    }
}
