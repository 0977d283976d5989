package io.streamhouse.broker;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import io.streamhouse.control.ChildState;
import io.streamhouse.supervisor.RestartPolicy;
import io.streamhouse.supervisor.Supervisor;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Lifecycle of one broker child JVM and the server settings it promises. */
class BrokerProcessIT {

    @Test
    void startsAnswersWithPromisedDefaultsAndStopsOnClose() throws Exception {
        Path dataDir = TestDirs.fresh("broker-lifecycle");
        BrokerProcess broker = BrokerProcess.start(BrokerOptions.ephemeral(dataDir));
        try (broker; Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:").doesNotEndWith(":0");
            assertThat(ProcessHandle.of(broker.pid())).hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
            assertThat(admin.describeCluster().nodes().get(10, TimeUnit.SECONDS)).hasSize(1);

            // num.partitions=3 applies to topics created without an explicit count.
            admin.createTopics(List.of(new NewTopic("broker-it.defaults", Optional.empty(), Optional.empty())))
                    .all().get(30, TimeUnit.SECONDS);
            TopicDescription described = admin.describeTopics(List.of("broker-it.defaults"))
                    .allTopicNames().get(10, TimeUnit.SECONDS).get("broker-it.defaults");
            assertThat(described.partitions()).hasSize(3);

            // Auto-creation is off: a producer cannot conjure up a topic by naming it.
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000),
                    new StringSerializer(), new StringSerializer())) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("broker-it.typo", "k", "v")).get(10, TimeUnit.SECONDS))
                        .isInstanceOfAny(TimeoutException.class, ExecutionException.class);
            }
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).doesNotContain("broker-it.typo");

            // Transactions version 1: Flink's Kafka sink recovers its checkpointed transactions only under it.
            assertThat(admin.describeFeatures().featureMetadata().get(10, TimeUnit.SECONDS).finalizedFeatures()
                    .get("transaction.version").maxVersionLevel()).isEqualTo((short) 1);
        }

        assertThat(broker.isAlive()).isFalse();
        assertThat(Files.readString(broker.logFile())).contains("server shut down cleanly");
        broker.close(); // idempotent
    }

    @Test
    void aPortTakenByAnotherProcessFailsWithTheChildsLog() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Path dataDir = TestDirs.fresh("broker-port-taken");
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> BrokerProcess.start(new BrokerOptions(dataDir, taken.getLocalPort(), true, "256m")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("before it was ready")
                    .hasMessageContaining("Last lines of");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(BrokerProcess.START_TIMEOUT);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.current().children()
                .noneMatch(p -> p.info().commandLine().orElse("").contains(BrokerMain.class.getName())));
    }

    @Test
    void aSupervisedBrokerKilledHardComesBackOnTheSamePortWithItsTopics() throws Exception {
        Path dataDir = TestDirs.fresh("broker-supervised");
        Supervisor supervisor = new Supervisor(new RestartPolicy(2, Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(60)), e -> { });
        // Port 0 and a wiping start, as tests ask for: the port is fixed once, and only the first start wipes.
        BrokerProcess broker = BrokerProcess.start(BrokerOptions.ephemeral(dataDir), supervisor);
        List<Long> pids = new java.util.ArrayList<>(List.of(broker.pid()));
        try (broker; Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            String bootstrap = broker.bootstrapServers();
            admin.createTopics(List.of(new NewTopic("broker-it.survives", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            long first = broker.pid();

            broker.supervised().kill();

            await().atMost(Duration.ofSeconds(90)).until(() -> broker.supervised().status().state() == ChildState.RUNNING
                    && broker.pid() != first);
            pids.add(broker.pid());
            assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
            assertThat(broker.supervised().status().restarts()).isEqualTo(1);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("broker-it.survives");
        } finally {
            pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly)); // no-op once closed
        }
        assertThat(broker.isAlive()).isFalse();
    }
}
