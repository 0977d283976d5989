package io.streamhouse.platform;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.connect.LakeConnector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.TopicExistsException;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the lake's sink needs on the broker before it starts: the control topic of this cluster, the dead-letter
 * topic, and the coordinator's consumer group seeded at offset 0.
 *
 * <p>Why the seed (apache/iceberg#18006): a coordinator whose group has no committed offset starts reading the
 * control topic at its end, so the data files a task announced before the coordinator's first poll (with the task's
 * source offsets already committed in the same transaction) would never be appended: lost rows. Seeded at 0, a new
 * coordinator reads every announcement; those already appended are recognised by the control-topic offsets in the
 * table's snapshot summary and not appended twice. The seed is written only while the group has no offsets.
 */
final class LakeControl {

    static final Duration CONTROL_RETENTION = Duration.ofDays(7);
    static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(30);
    private static final long TIMEOUT_S = 30;

    private LakeControl() {
    }

    static String clusterId(String bootstrapServers) {
        try (Admin admin = admin(bootstrapServers)) {
            return admin.describeCluster().clusterId().get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the Kafka cluster id from " + bootstrapServers + ": " + e.getMessage(), e);
        }
    }

    /** Creates the control and dead-letter topics if missing and seeds the coordinator's group; returns whether it seeded. */
    static boolean prepare(String bootstrapServers, String controlTopic) {
        try (Admin admin = admin(bootstrapServers)) {
            // Replication: the broker's default (1 on one broker, 3 on a cluster).
            create(admin, new NewTopic(controlTopic, Optional.of(1), Optional.empty()).configs(Map.of("cleanup.policy", "delete",
                    "retention.ms", Long.toString(CONTROL_RETENTION.toMillis()))));
            create(admin, new NewTopic(LakeConnector.DEAD_LETTER_TOPIC, Optional.of(1), Optional.empty()).configs(Map.of("cleanup.policy", "delete",
                    "retention.ms", Long.toString(DEAD_LETTER_RETENTION.toMillis()))));
            String group = LakeConnector.coordinatorGroup();
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(TIMEOUT_S, TimeUnit.SECONDS);
            TopicPartition control = new TopicPartition(controlTopic, 0);
            if (committed.get(control) != null) {
                return false;
            }
            Map<TopicPartition, OffsetAndMetadata> seed = new HashMap<>();
            seed.put(control, new OffsetAndMetadata(0L));
            // A coordinator killed before its first commit may still be a member until its session times out (10 s):
            // offsets of a group with members cannot be altered, so retry until it left.
            long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
            while (true) {
                try {
                    admin.alterConsumerGroupOffsets(group, seed).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                    return true;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof GroupNotEmptyException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    TimeUnit.MILLISECONDS.sleep(500); // back-off between attempts, bounded by the deadline
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot prepare the lake's control topic " + controlTopic + ": " + e.getMessage(), e);
        }
    }

    /** The coordinator group's committed offset on the control topic; -1 when it has none. */
    static long coordinatorOffset(String bootstrapServers, String controlTopic) {
        try (Admin admin = admin(bootstrapServers)) {
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets(LakeConnector.coordinatorGroup())
                    .partitionsToOffsetAndMetadata().get(TIMEOUT_S, TimeUnit.SECONDS).get(new TopicPartition(controlTopic, 0));
            return committed == null ? -1 : committed.offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the lake coordinator's offset: " + e.getMessage(), e);
        }
    }

    /**
     * Waits until the coordinator committed past {@code before}: it does so after each completed commit round, even
     * one with nothing to append, so the sink then runs end to end (task, control topic, coordinator, catalog).
     */
    static void awaitCommitPast(String bootstrapServers, String controlTopic, long before, Duration timeout,
                                java.util.function.BooleanSupplier workerAlive) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (coordinatorOffset(bootstrapServers, controlTopic) <= before) {
            if (!workerAlive.getAsBoolean()) {
                throw new IllegalStateException("the Connect worker died before the lake's sink completed a commit");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the lake's sink completed no commit within " + timeout.toSeconds()
                        + " s (coordinator group " + LakeConnector.coordinatorGroup() + " still at offset " + before
                        + " of " + controlTopic + ")");
            }
            try {
                TimeUnit.MILLISECONDS.sleep(200); // back-off between polls, bounded by the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    private static void create(Admin admin, NewTopic topic) throws InterruptedException, ExecutionException, TimeoutException {
        if (admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS).contains(topic.name())) {
            return;
        }
        try {
            admin.createTopics(List.of(topic)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    private static Admin admin(String bootstrapServers) {
        return Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM).admin(bootstrapServers));
    }
}
