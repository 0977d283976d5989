package io.streamhouse.platform;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.topic.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Creates the catalog's topics with their partitions and configs; topics that exist are left as they are (the
 * broker's auto-creation is off, so nothing else creates them). Replication factor 1: one local broker. On a
 * cluster, create the same topics from the same catalog with the cluster's replication factor.
 */
public final class TopicProvisioner {

    public static void ensure(String bootstrapServers, Collection<? extends Topic<?, ?>> topics) {
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM).admin(bootstrapServers))) {
            ensure(admin, topics);
        }
    }

    /** As {@link #ensure(String, Collection)}, through an admin client that may create topics. */
    public static void ensure(Admin admin, Collection<? extends Topic<?, ?>> topics) {
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = topics.stream()
                    .filter(t -> !existing.contains(t.name()))
                    .map(t -> new NewTopic(t.name(), t.partitions(), (short) 1).configs(t.configs()))
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

    private TopicProvisioner() {
    }
}
