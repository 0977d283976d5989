package io.streamhouse.connect;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownMemberIdException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the lake's sink needs on the broker before it starts: the control topic of its cluster, the dead-letter topic,
 * and the coordinator's consumer group seeded at offset 0. The local platform does all three as the administrator;
 * on Kubernetes the topics are {@code KafkaTopic}s and {@link LakePrepareMain} seeds the group as {@code connect}.
 *
 * <p>Why the seed (apache/iceberg#18006): a coordinator whose group has no committed offset starts reading the
 * control topic at its end, so the data files a task announced before the coordinator's first poll (with the task's
 * source offsets already committed in the same transaction) would never be appended: lost rows. Seeded at 0, a new
 * coordinator reads every announcement; those already appended are recognised by the control-topic offsets in the
 * table's snapshot summary and not appended twice. The seed is written only while the group has no offsets.
 */
public final class LakePreparation {

    public static final Duration CONTROL_RETENTION = Duration.ofDays(7);
    public static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(30);
    private static final long TIMEOUT_S = 30;

    private LakePreparation() {
    }

    /** The control topic: one partition (the coordinator reads it in order), deleted after {@link #CONTROL_RETENTION}. */
    public static NewTopic controlTopic(String name) {
        return new NewTopic(name, Optional.of(1), Optional.empty()).configs(Map.of("cleanup.policy", "delete",
                "retention.ms", Long.toString(CONTROL_RETENTION.toMillis())));
    }

    /** The sink's dead-letter topic, kept {@link #DEAD_LETTER_RETENTION}. */
    public static NewTopic deadLetterTopic() {
        return new NewTopic(LakeConnector.DEAD_LETTER_TOPIC, Optional.of(1), Optional.empty()).configs(Map.of("cleanup.policy", "delete",
                "retention.ms", Long.toString(DEAD_LETTER_RETENTION.toMillis())));
    }

    public static String clusterId(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        return admin.describeCluster().clusterId().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** Creates the control and dead-letter topics where missing (replication: the broker's default). */
    public static void createTopics(Admin admin, String controlTopic) throws InterruptedException, ExecutionException, TimeoutException {
        for (NewTopic topic : List.of(controlTopic(controlTopic), deadLetterTopic())) {
            if (admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS).contains(topic.name())) {
                continue;
            }
            try {
                admin.createTopics(List.of(topic)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }

    /** Which of the control and dead-letter topics the broker does not have. */
    public static List<String> missingTopics(Admin admin, String controlTopic) throws InterruptedException, ExecutionException, TimeoutException {
        Set<String> names = admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS);
        List<String> missing = new ArrayList<>();
        for (String name : List.of(controlTopic, LakeConnector.DEAD_LETTER_TOPIC)) {
            if (!names.contains(name)) {
                missing.add(name);
            }
        }
        return missing;
    }

    /** The coordinator group's committed offset on the control topic; -1 when it has none. */
    public static long coordinatorOffset(Admin admin, String controlTopic) throws InterruptedException, ExecutionException, TimeoutException {
        OffsetAndMetadata committed = admin.listConsumerGroupOffsets(LakeConnector.coordinatorGroup())
                .partitionsToOffsetAndMetadata().get(TIMEOUT_S, TimeUnit.SECONDS).get(new TopicPartition(controlTopic, 0));
        return committed == null ? -1 : committed.offset();
    }

    /** Seeds the coordinator's group at offset 0 of the control topic unless it has an offset; returns whether it seeded. */
    public static boolean seedCoordinator(Admin admin, String controlTopic) throws InterruptedException, ExecutionException, TimeoutException {
        if (coordinatorOffset(admin, controlTopic) >= 0) {
            return false;
        }
        Map<TopicPartition, OffsetAndMetadata> seed = Map.of(new TopicPartition(controlTopic, 0), new OffsetAndMetadata(0L));
        // A coordinator killed before its first commit may still be a member until its session times out (10 s):
        // offsets of a group with members cannot be altered, so retry until it left.
        long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
        while (true) {
            try {
                admin.alterConsumerGroupOffsets(LakeConnector.coordinatorGroup(), seed).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                return true;
            } catch (ExecutionException e) {
                // A running coordinator is a member: the broker refuses (GroupNotEmpty, or UnknownMemberId from a
                // stable group) until it has left.
                boolean members = e.getCause() instanceof GroupNotEmptyException || e.getCause() instanceof UnknownMemberIdException;
                if (members && System.nanoTime() > deadline) {
                    throw new IllegalStateException("the coordinator group " + LakeConnector.coordinatorGroup() + " still has members after "
                            + TIMEOUT_S + " s: seed it before the lake connector's first start, or stop the connector (state stopped) first", e);
                }
                if (!members) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(500); // back-off between attempts, bounded by the deadline
            }
        }
    }
}
