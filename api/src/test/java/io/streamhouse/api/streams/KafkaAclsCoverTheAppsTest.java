package io.streamhouse.api.streams;

import io.streamhouse.lineage.TopologyDatasets;
import io.streamhouse.platform.KafkaAcls;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka ACL table ({@link KafkaAcls}, applied by the platform on every start) lets each of the api's Streams apps
 * read every topic its real topology reads, write every topic it writes and own its internal topics: a topology that
 * starts reading a new topic fails here rather than with an authorization error on a secured stack.
 */
class KafkaAclsCoverTheAppsTest {

    private final LineageOfTheAppsTest apps = new LineageOfTheAppsTest();

    @Test
    void theDecisionAppMayReadAndWriteWhatItsTopologyDoes() {
        assertCovered(KafkaPrincipal.DECISIONS, KafkaAcls.DECISIONS_APP, apps.decisionTopology());
    }

    @Test
    void theServingAppMayReadAndWriteWhatItsTopologyDoes() {
        assertCovered(KafkaPrincipal.SERVING, KafkaAcls.SERVING_APP, apps.servingTopology());
    }

    static void assertCovered(KafkaPrincipal principal, String applicationId, Topology topology) {
        TopologyDatasets datasets = TopologyDatasets.of(topology.describe());
        assertThat(datasets.inputs()).isNotEmpty().allSatisfy(topic ->
                assertThat(KafkaAcls.allows(principal, ResourceType.TOPIC, topic, AclOperation.READ)).as(principal + " reads " + topic).isTrue());
        assertThat(datasets.outputs()).isNotEmpty().allSatisfy(topic ->
                assertThat(KafkaAcls.allows(principal, ResourceType.TOPIC, topic, AclOperation.WRITE)).as(principal + " writes " + topic).isTrue());
        // Streams prefixes its repartition and changelog topics, its transactional ids and its group with the application id.
        for (String internal : datasets.internal()) {
            assertThat(KafkaAcls.allows(principal, ResourceType.TOPIC, applicationId + "-" + internal, AclOperation.CREATE)).isTrue();
        }
        assertThat(KafkaAcls.allows(principal, ResourceType.TOPIC, applicationId + "-some-store-changelog", AclOperation.CREATE)).isTrue();
        assertThat(KafkaAcls.allows(principal, ResourceType.GROUP, applicationId, AclOperation.READ)).isTrue();
        assertThat(KafkaAcls.allows(principal, ResourceType.TRANSACTIONAL_ID, applicationId + "-0f1e-1", AclOperation.WRITE)).isTrue();
        assertThat(KafkaAcls.allows(principal, ResourceType.TOPIC, "rules.definitions", AclOperation.WRITE)).as("no app writes rules").isFalse();
    }
}
