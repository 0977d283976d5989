package io.streamhouse.platform;

import io.streamhouse.connect.LakeConnector;
import io.streamhouse.connect.LakePreparation;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.Admin;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The platform's side of {@link LakePreparation}: the same steps as the administrator (topics created where missing),
 * and the wait for the sink's first commit.
 */
final class LakeControl {

    private LakeControl() {
    }

    static String clusterId(String bootstrapServers) {
        try (Admin admin = admin(bootstrapServers)) {
            return LakePreparation.clusterId(admin);
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
            LakePreparation.createTopics(admin, controlTopic);
            return LakePreparation.seedCoordinator(admin, controlTopic);
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
            return LakePreparation.coordinatorOffset(admin, controlTopic);
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

    private static Admin admin(String bootstrapServers) {
        return Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM).admin(bootstrapServers));
    }
}
