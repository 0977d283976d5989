package io.streamhouse.replay;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

/** Committed offsets of a Streams application (its consumer group) and what they say about its progress. */
final class Groups {

    static Map<TopicPartition, Long> committed(Admin admin, String groupId) {
        try {
            Map<TopicPartition, OffsetAndMetadata> raw = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> offsets = new HashMap<>();
            raw.forEach((tp, om) -> {
                if (om != null) {
                    offsets.put(tp, om.offset());
                }
            });
            return offsets;
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot read the offsets of group " + groupId + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static boolean exists(Admin admin, String groupId) {
        try {
            return admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream().anyMatch(g -> g.groupId().equals(groupId));
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot list consumer groups: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Set<String> topicsWithPrefix(Admin admin, String prefix) {
        try {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS).stream().filter(t -> t.startsWith(prefix))
                    .collect(Collectors.toSet());
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot list topics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Last stable offsets (read_committed ends) of every partition of {@code topics}. */
    static Map<TopicPartition, Long> ends(Admin admin, Collection<String> topics) {
        try {
            if (topics.isEmpty()) {
                return Map.of();
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values().forEach(d -> d.partitions()
                    .forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
            return ends;
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot read the end offsets of " + topics + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Offsets up to {@code targets} not yet committed by the group (0 when every partition is there). */
    static long remaining(Map<TopicPartition, Long> committed, Map<TopicPartition, Long> targets, Map<TopicPartition, Long> starts) {
        long remaining = 0;
        for (var e : targets.entrySet()) {
            long start = starts.getOrDefault(e.getKey(), 0L);
            long at = Math.max(start, committed.getOrDefault(e.getKey(), start));
            remaining += Math.max(0, e.getValue() - at);
        }
        return remaining;
    }

    /**
     * Waits until {@code groupId} has committed at least the cut on every input partition, then at least the end of
     * each of its repartition topics as they were then (their records before the cut are processed too), reporting
     * the offsets still to go. Streams commits its consumer's position when a partition's buffer is empty, so a
     * transaction marker just before the cut does not hold this back.
     *
     * @return false if the deadline passed first
     */
    static boolean awaitCaughtUp(Admin admin, String groupId, Cut cut, List<String> repartitionTopics, Duration timeout, LongConsumer remaining,
                                 java.util.function.BooleanSupplier failed) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        Map<TopicPartition, Long> repartitionEnds = null;
        while (Instant.now().isBefore(deadline) && !failed.getAsBoolean()) {
            Map<TopicPartition, Long> committed = committed(admin, groupId);
            long left = remaining(committed, cut.offsets(), cut.earliest());
            remaining.accept(left);
            if (left == 0) {
                if (repartitionEnds == null) {
                    Set<String> existing = topicsWithPrefix(admin, groupId + "-");
                    repartitionEnds = ends(admin, repartitionTopics.stream().filter(existing::contains).toList());
                }
                if (remaining(committed, repartitionEnds, Map.of()) == 0) {
                    return true;
                }
            }
            Thread.sleep(250);
        }
        return false;
    }

    /**
     * Waits until {@code groupId} has committed at least {@code ends} on every partition named (a Flink Kafka source
     * commits with each completed checkpoint the offset after its last record read).
     *
     * @return false if the deadline passed first
     */
    static boolean awaitCommitted(Admin admin, String groupId, Map<TopicPartition, Long> ends, Duration timeout)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            Map<TopicPartition, Long> committed = committed(admin, groupId);
            if (ends.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), -1L) >= e.getValue())) {
                return true;
            }
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            Thread.sleep(250);
        }
    }

    private Groups() {
    }
}
