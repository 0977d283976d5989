package io.streamhouse.platform;

import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicProvisionerTest {

    @Test
    void oneBrokerGetsOneReplicaAndTheCatalogsConfigsUnchanged() {
        NewTopic decisions = TopicProvisioner.newTopic(Topics.TRANSACTION_DECISIONS, 1);
        assertThat(decisions.replicationFactor()).isEqualTo((short) 1);
        assertThat(decisions.numPartitions()).isEqualTo(Topics.TRANSACTION_DECISIONS.partitions());
        assertThat(decisions.configs()).isEqualTo(Topics.TRANSACTION_DECISIONS.configs());
    }

    @Test
    void aClusterGetsThreeReplicasTwoInSyncAndKeepsTheCatalogsConfigs() {
        for (var topic : Topics.allWithDeadLetters()) {
            NewTopic created = TopicProvisioner.newTopic(topic, 3);
            assertThat(created.replicationFactor()).as(topic.name()).isEqualTo((short) 3);
            assertThat(created.configs()).as(topic.name()).containsAllEntriesOf(topic.configs())
                    .containsEntry("min.insync.replicas", "2");
        }
        assertThatThrownBy(() -> TopicProvisioner.newTopic(Topics.TRANSACTION_DECISIONS, 0)).hasMessageContaining("replication");
    }
}
