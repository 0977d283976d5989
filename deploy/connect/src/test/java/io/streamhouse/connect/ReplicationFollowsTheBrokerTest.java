package io.streamhouse.connect;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every topic Connect may create takes the broker's default replication (-1): one replica on the single broker, three
 * on a cluster of three, with no setting to keep in step with the broker count.
 */
class ReplicationFollowsTheBrokerTest {

    @Test
    void theWorkersInternalTopicsAndTheConnectorsTopicsAskForTheBrokersDefault() {
        Map<String, String> worker = WorkerConfig.of(ConnectOptions.of(Path.of("target"), "127.0.0.1:9092", "http://127.0.0.1:8085"), 8083);
        assertThat(worker).containsEntry("config.storage.replication.factor", "-1")
                .containsEntry("offset.storage.replication.factor", "-1")
                .containsEntry("status.storage.replication.factor", "-1");
        Map<String, String> cdc = CdcConnector.config(new CdcConnector.Source("jdbc:postgresql://127.0.0.1:5432/streamhouse",
                "postgres", "", null, null), "http://127.0.0.1:8085");
        assertThat(cdc).containsEntry("topic.creation.default.replication.factor", "-1");
        Map<String, String> lake = LakeConnector.config(LakeConnector.settings(Map.of("warehouse", "file:///lake"),
                "127.0.0.1:9092", "http://127.0.0.1:8085", "cluster"));
        assertThat(lake).containsEntry("errors.deadletterqueue.topic.replication.factor", "-1");
    }
}
