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
public final class Groups {

    /**
     * The cut's partitions on which {@code committed} is beyond it (partition → committed offset, by name, sorted):
     * where a live application, read after the cut, holds later input too.
     */
    static Map<String, Long> pastCut(Map<TopicPartition, Long> committed, Cut cut) {
        Map<String, Long> past = new java.util.TreeMap<>();
        cut.offsets().forEach((tp, at) -> {
            Long live = committed.get(tp);
            if (live != null && live > at) {
                past.put(tp.toString(), live);
            }
        });
        return past;
    }

    public static Map<TopicPartition, Long> committed(Admin admin, String groupId) {
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

    public static boolean exists(Admin admin, String groupId) {
        try {
            return admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream().anyMatch(g -> g.groupId().equals(groupId));
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot list consumer groups: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static Set<String> topicsWithPrefix(Admin admin, String prefix) {
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
    public static Map<TopicPartition, Long> ends(Admin admin, Collection<String> topics) {
        return offsets(admin, topics, IsolationLevel.READ_COMMITTED);
    }

    private static Map<TopicPartition, Long> offsets(Admin admin, Collection<String> topics, IsolationLevel isolation) {
        try {
            if (topics.isEmpty()) {
                return Map.of();
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values().forEach(d -> d.partitions()
                    .forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(30, TimeUnit.SECONDS)
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

    /** Log ends of every partition of {@code topics}: the high watermark (read_uncommitted), open transactions included. */
    static Map<TopicPartition, Long> logEnds(Admin admin, Collection<String> topics) {
        return offsets(admin, topics, IsolationLevel.READ_UNCOMMITTED);
    }

    /**
     * What the completion checks read from the broker; {@link #of(Admin)} in production, a scripted log in tests (the
     * marker race below cannot be timed on a real broker).
     */
    interface Log {
        Map<TopicPartition, Long> committed(String groupId);

        Set<String> topicsWithPrefix(String prefix);

        /** read_committed ends: stop before the first record of a transaction whose marker is not yet written. */
        Map<TopicPartition, Long> lastStable(Collection<String> topics);

        /** read_uncommitted ends: after every record appended, open transactions included. */
        Map<TopicPartition, Long> logEnds(Collection<String> topics);

        static Log of(Admin admin) {
            return new Log() {
                public Map<TopicPartition, Long> committed(String groupId) {
                    return Groups.committed(admin, groupId);
                }

                public Set<String> topicsWithPrefix(String prefix) {
                    return Groups.topicsWithPrefix(admin, prefix);
                }

                public Map<TopicPartition, Long> lastStable(Collection<String> topics) {
                    return Groups.ends(admin, topics);
                }

                public Map<TopicPartition, Long> logEnds(Collection<String> topics) {
                    return Groups.logEnds(admin, topics);
                }
            };
        }
    }

    /**
     * True when every record below {@code targets} is decided (the last stable offset has reached it: no transaction
     * begun before it is still open) and {@code groupId} has committed at least {@code targets} (processed them).
     */
    static boolean drained(Map<TopicPartition, Long> committed, Map<TopicPartition, Long> targets, Map<TopicPartition, Long> lastStable) {
        return targets.entrySet().stream().allMatch(e -> lastStable.getOrDefault(e.getKey(), -1L) >= e.getValue()
                && committed.getOrDefault(e.getKey(), 0L) >= e.getValue());
    }

    static boolean awaitCaughtUp(Admin admin, String groupId, Cut cut, List<String> repartitionTopics, Duration timeout, LongConsumer remaining,
                                 java.util.function.BooleanSupplier failed) throws InterruptedException {
        return awaitCaughtUp(Log.of(admin), groupId, cut, repartitionTopics, timeout, Duration.ofMillis(250), remaining, failed);
    }

    /**
     * Waits until {@code groupId} has committed at least the cut on every input partition, then has processed every
     * record its repartition topics held at that moment. Streams commits its consumer's position when a partition's
     * buffer is empty, so a transaction marker just before the cut does not hold this back.
     *
     * <p>The repartition target is the log end (high watermark), not the last stable offset: under exactly-once the
     * task that read the inputs wrote its repartition records and committed its input offsets in one transaction, but
     * the broker writes that transaction's commit markers to each partition separately (the offsets' marker through
     * the group coordinator, the repartition partitions' through the log), so the input offsets can be visible while
     * the repartition partitions still end, read_committed, before the whole transaction. Once the input offsets are
     * at the cut, every record the inputs before the cut produced is in the log below the log end; so the group is
     * drained when the last stable offset has reached that log end (no such transaction still open) and its committed
     * offsets on the repartition topics have too.
     *
     * @return false if the deadline passed first
     */
    static boolean awaitCaughtUp(Log log, String groupId, Cut cut, List<String> repartitionTopics, Duration timeout, Duration poll,
                                 LongConsumer remaining, java.util.function.BooleanSupplier failed) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        Map<TopicPartition, Long> repartitionTargets = null;
        while (Instant.now().isBefore(deadline) && !failed.getAsBoolean()) {
            Map<TopicPartition, Long> committed = log.committed(groupId);
            long left = remaining(committed, cut.offsets(), cut.earliest());
            remaining.accept(left);
            if (left == 0) {
                if (repartitionTargets == null) {
                    Set<String> existing = log.topicsWithPrefix(groupId + "-");
                    List<String> topics = repartitionTopics.stream().filter(existing::contains).toList();
                    repartitionTargets = topics.isEmpty() ? Map.of() : log.logEnds(topics);
                }
                if (repartitionTargets.isEmpty() || drained(log.committed(groupId), repartitionTargets,
                        log.lastStable(repartitionTargets.keySet().stream().map(TopicPartition::topic).distinct().toList()))) {
                    return true;
                }
            }
            Thread.sleep(poll.toMillis());
        }
        return false;
    }

    /**
     * Ends to read {@code topics} to such that nothing written before this call is missed: the log ends now, returned
     * once the last stable offsets have reached them (every transaction open now has its marker). A closed shadow's
     * last commit can still be without its markers on its changelogs when its offsets are already visible; reading to
     * the last stable offsets alone would then stop before that commit's records.
     */
    static Map<TopicPartition, Long> settledEnds(Log log, Collection<String> topics, Duration timeout, Duration poll) throws InterruptedException {
        Map<TopicPartition, Long> targets = log.logEnds(topics);
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            Map<TopicPartition, Long> stable = log.lastStable(topics);
            if (targets.entrySet().stream().allMatch(e -> stable.getOrDefault(e.getKey(), -1L) >= e.getValue())) {
                return targets;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new Endpoints.EnvironmentException("a transaction on " + topics + " stayed open for " + timeout.toSeconds()
                        + " s (last stable " + new java.util.TreeMap<>(stringKeys(stable)) + ", log end " + new java.util.TreeMap<>(stringKeys(targets)) + ")");
            }
            Thread.sleep(poll.toMillis());
        }
    }

    private static Map<String, Long> stringKeys(Map<TopicPartition, Long> offsets) {
        Map<String, Long> out = new HashMap<>();
        offsets.forEach((tp, o) -> out.put(tp.toString(), o));
        return out;
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
