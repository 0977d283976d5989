package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.wire.AvroSerde;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.lineage.TopologyDatasets;
import io.streamhouse.platform.KafkaAcls;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka ACL table lets the CDC normaliser (user {@code cdc-normaliser}) read and write exactly what its real
 * topology does and own its internal topics, group and transactional ids.
 */
class CdcKafkaAclsTest {

    @Test
    void theNormaliserMayReadAndWriteWhatItsTopologyDoes() {
        var registry = new InMemorySchemaRegistryClient();
        var topology = CdcNormalisationTopology.build(registry, new CdcNormalisationTopology.Serdes2(
                new AvroSerde<>(registry, CustomerEvent.class, false), new AvroSerde<>(registry, OrderEvent.class, false)));
        TopologyDatasets datasets = TopologyDatasets.of(topology.describe());
        KafkaPrincipal p = KafkaPrincipal.CDC_NORMALISER;
        assertThat(datasets.inputs()).isNotEmpty().allSatisfy(t ->
                assertThat(KafkaAcls.allows(p, ResourceType.TOPIC, t, AclOperation.READ)).as("reads " + t).isTrue());
        assertThat(datasets.outputs()).isNotEmpty().allSatisfy(t ->
                assertThat(KafkaAcls.allows(p, ResourceType.TOPIC, t, AclOperation.WRITE)).as("writes " + t).isTrue());
        String app = CdcNormaliser.DEFAULT_APPLICATION_ID;
        assertThat(app).isEqualTo(KafkaAcls.CDC_APP);
        assertThat(KafkaAcls.allows(p, ResourceType.TOPIC, app + "-store-changelog", AclOperation.CREATE)).isTrue();
        assertThat(KafkaAcls.allows(p, ResourceType.GROUP, app, AclOperation.READ)).isTrue();
        assertThat(KafkaAcls.allows(p, ResourceType.TRANSACTIONAL_ID, app + "-0f1e-1", AclOperation.WRITE)).isTrue();
        assertThat(KafkaAcls.allows(p, ResourceType.TOPIC, "payments.transactions.requested", AclOperation.READ)).isFalse();
    }
}
