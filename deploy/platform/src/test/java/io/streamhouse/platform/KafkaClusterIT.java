package io.streamhouse.platform;

import io.streamhouse.domain.topic.Topics;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Three secured KRaft brokers, each its own JVM, set up as the platform sets up a cluster: the catalog's topics with
 * three replicas of which two must acknowledge, the internal topics likewise, SCRAM logins and the ACLs applied once
 * and in force on every node. Tagged {@code drills}: three broker JVMs starting together on 2 cores take longer than
 * the suite's budget allows; {@code BrokerClusterConfigTest} and {@code TopicProvisionerTest} check the same settings
 * in the suite without a broker.
 */
@Tag("drills")
class KafkaClusterIT {

    private static SecuredCluster kafka;

    @BeforeAll
    static void startCluster() throws Exception {
        long t0 = System.nanoTime();
        kafka = SecuredCluster.start("kafka-cluster");
        System.out.printf("KafkaClusterIT: three secured nodes up, ACLs applied and topics created in %d ms (pids %s)%n",
                (System.nanoTime() - t0) / 1_000_000, kafka.cluster.pids());
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void theCatalogsTopicsHaveThreeReplicasAllInSyncAndNeedTwoToAcknowledge() throws Exception {
        try (Admin admin = kafka.admin(KafkaPrincipal.PLATFORM)) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(3);
            String decisions = Topics.TRANSACTION_DECISIONS.name();
            TopicDescription described = admin.describeTopics(List.of(decisions)).allTopicNames().get(30, TimeUnit.SECONDS).get(decisions);
            assertThat(described.partitions()).hasSize(Topics.TRANSACTION_DECISIONS.partitions());
            for (TopicPartitionInfo p : described.partitions()) {
                assertThat(p.replicas()).as("replicas of partition %d", p.partition()).hasSize(3);
                assertThat(p.isr()).as("in-sync replicas of partition %d", p.partition()).hasSize(3);
            }
            assertThat(described.partitions().stream().map(p -> p.leader().id()).distinct().count())
                    .as("leadership spread over the nodes").isGreaterThan(1);
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, decisions);
            ConfigResource node2 = new ConfigResource(ConfigResource.Type.BROKER, "2");
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(topic, node2)).all().get(30, TimeUnit.SECONDS);
            assertThat(configs.get(topic).get("min.insync.replicas").value()).isEqualTo("2");
            assertThat(configs.get(topic).get("retention.ms").value()).as("the catalog's configs kept").isEqualTo("-1");
            for (String key : List.of("default.replication.factor", "offsets.topic.replication.factor", "transaction.state.log.replication.factor")) {
                assertThat(configs.get(node2).get(key).value()).as(key).isEqualTo("3");
            }
            assertThat(configs.get(node2).get("transaction.state.log.min.isr").value()).isEqualTo("2");
        }
    }

    @Test
    void aServiceLogsInWithScramOnAnyNodeAndTheAclsAppliedOnceHoldOnEveryNode() throws Exception {
        for (var node : kafka.cluster.nodes()) {
            try (KafkaProducer<String, String> ingest = new KafkaProducer<>(kafka.settings(KafkaPrincipal.INGEST).producer(
                    node.bootstrapServers(), Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)), new StringSerializer(), new StringSerializer())) {
                assertThat(ingest.send(new ProducerRecord<>(Topics.PARCEL_SCANS.name(), "k", "v")).get(30, TimeUnit.SECONDS).offset())
                        .as("ingest writes scans through %s", node.bootstrapServers()).isNotNegative();
                assertThatThrownBy(() -> ingest.send(new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), "k", "v")).get(30, TimeUnit.SECONDS))
                        .as("ingest may not write decisions, through %s", node.bootstrapServers())
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
            }
        }
    }
}
