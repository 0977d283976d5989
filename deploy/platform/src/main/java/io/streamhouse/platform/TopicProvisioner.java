package io.streamhouse.platform;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.topic.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Creates the catalog's topics with their partitions and configs; topics that exist are left as they are (the
 * broker's auto-creation is off, so nothing else creates them). Replication factor 1 on one local broker; on a
 * cluster the cluster's replication factor, with {@code min.insync.replicas} one less (unless the catalog sets it), so
 * an acks=all write survives the loss of one replica.
 */
public final class TopicProvisioner {

    public static void ensure(String bootstrapServers, Collection<? extends Topic<?, ?>> topics) {
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM).admin(bootstrapServers))) {
            ensure(admin, topics);
        }
    }

    /** As {@link #ensure(String, Collection)} on a cluster whose topics have {@code replicationFactor} replicas. */
    public static void ensure(String bootstrapServers, Collection<? extends Topic<?, ?>> topics, int replicationFactor) {
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM).admin(bootstrapServers))) {
            ensure(admin, topics, replicationFactor);
        }
    }

    /** As {@link #ensure(String, Collection)}, through an admin client that may create topics. */
    public static void ensure(Admin admin, Collection<? extends Topic<?, ?>> topics) {
        ensure(admin, topics, 1);
    }

    /** As {@link #ensure(Admin, Collection)}, each topic with {@code replicationFactor} replicas. */
    public static void ensure(Admin admin, Collection<? extends Topic<?, ?>> topics, int replicationFactor) {
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = topics.stream()
                    .filter(t -> !existing.contains(t.name()))
                    .map(t -> newTopic(t, replicationFactor))
                    .toList();
            if (missing.isEmpty()) {
                return;
            }
            try {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not create topics: " + e.getMessage(), e);
        }
    }

    /** The topic as created: the catalog's partitions and configs, the replicas asked for and their in-sync minimum. */
    static NewTopic newTopic(Topic<?, ?> topic, int replicationFactor) {
        if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
            throw new IllegalArgumentException("replication factor must be at least 1, was " + replicationFactor);
        }
        Map<String, String> configs = new LinkedHashMap<>(topic.configs());
        if (replicationFactor > 1) {
            configs.putIfAbsent(MIN_INSYNC_REPLICAS, Integer.toString(replicationFactor - 1));
        }
        return new NewTopic(topic.name(), topic.partitions(), (short) replicationFactor).configs(configs);
    }

    static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";

    private TopicProvisioner() {
    }
}
