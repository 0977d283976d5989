package io.streamhouse.broker;

import io.streamhouse.security.kafka.KafkaCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The configuration every node of a three-node cluster gets, checked without starting one. */
class BrokerClusterConfigTest {

    private static final List<Integer> PORTS = List.of(41001, 41002, 41003, 42001, 42002, 42003);

    @Test
    void everyNodeHasItsOwnDirectoryAndPortsAndAllShareOneClusterIdAndQuorum(@TempDir Path dir) {
        List<BrokerOptions> nodes = BrokerCluster.plan(BrokerOptions.ephemeral(dir), 3, "AbCdEfGhIjKlMnOpQrStUv", PORTS);

        assertThat(nodes).extracting(BrokerOptions::componentName).containsExactly("broker", "broker-2", "broker-3");
        assertThat(nodes).extracting(BrokerOptions::dataDir).containsExactly(dir.resolve("node-1"), dir.resolve("node-2"), dir.resolve("node-3"));
        assertThat(nodes).extracting(BrokerOptions::port).containsExactly(41001, 41002, 41003);
        assertThat(nodes).extracting(n -> n.cluster().controllerPort()).containsExactly(42001, 42002, 42003);
        assertThat(nodes).extracting(n -> n.cluster().clusterId()).containsOnly("AbCdEfGhIjKlMnOpQrStUv");
        assertThat(nodes).extracting(n -> n.cluster().quorumVoters())
                .containsOnly("1@127.0.0.1:42001,2@127.0.0.1:42002,3@127.0.0.1:42003");
        assertThat(ClusterMembership.parseVoters(nodes.get(0).cluster().quorumVoters())).isEqualTo(nodes.get(0).cluster().voters());
    }

    @Test
    void aFixedPortGivesTheNodesThatPortAndTheNextOnes(@TempDir Path dir) {
        List<BrokerOptions> nodes = BrokerCluster.plan(BrokerOptions.persistent(dir, 9092), 3, "AbCdEfGhIjKlMnOpQrStUv",
                PORTS.subList(3, 6));
        assertThat(nodes).extracting(BrokerOptions::port).containsExactly(9092, 9093, 9094);
        assertThat(nodes).extracting(n -> n.cluster().controllerPort()).containsExactly(42001, 42002, 42003);
        assertThat(nodes).allMatch(n -> !n.wipeOnStart());
    }

    @Test
    void theNodesConfigurationNamesEveryVoterAndListensOnItsOwnPorts(@TempDir Path dir) {
        List<BrokerOptions> plan = BrokerCluster.plan(BrokerOptions.ephemeral(dir), 3, "AbCdEfGhIjKlMnOpQrStUv", PORTS);
        Set<String> listeners = new HashSet<>();
        for (BrokerOptions node : plan) {
            Properties p = BrokerMain.serverConfig(node.dataDir().resolve("kraft"), node.port(), node.cluster().nodeId(), node.cluster().voters());
            assertThat(p.getProperty("node.id")).isEqualTo(Integer.toString(node.cluster().nodeId()));
            assertThat(p.getProperty("controller.quorum.voters")).isEqualTo("1@127.0.0.1:42001,2@127.0.0.1:42002,3@127.0.0.1:42003");
            assertThat(p.getProperty("listeners")).isEqualTo("PLAINTEXT://127.0.0.1:" + node.port() + ",CONTROLLER://127.0.0.1:"
                    + node.cluster().controllerPort());
            assertThat(p.getProperty("log.dirs")).startsWith(node.dataDir().toString());
            listeners.addAll(List.of(p.getProperty("listeners").split(",")));
        }
        assertThat(listeners).as("six listeners, no port twice").hasSize(6);
        assertThat(listeners.stream().map(l -> l.substring(l.lastIndexOf(':') + 1)).distinct()).hasSize(6);
    }

    @Test
    void threeNodesReplicateEverythingThreeTimesAndAcknowledgeOnTwo(@TempDir Path dir) {
        List<ClusterMembership.Voter> three = List.of(new ClusterMembership.Voter(1, 42001), new ClusterMembership.Voter(2, 42002),
                new ClusterMembership.Voter(3, 42003));
        Properties p = BrokerMain.serverConfig(dir, 41002, 2, three);
        assertThat(p).contains(Map.entry("default.replication.factor", "3"), Map.entry("min.insync.replicas", "2"),
                Map.entry("offsets.topic.replication.factor", "3"), Map.entry("transaction.state.log.replication.factor", "3"),
                Map.entry("transaction.state.log.min.isr", "2"), Map.entry("share.coordinator.state.topic.replication.factor", "3"),
                Map.entry("share.coordinator.state.topic.min.isr", "2"));

        Properties single = BrokerMain.serverConfig(dir, 9092, 9093);
        assertThat(single).as("one broker: as before").contains(Map.entry("node.id", "1"), Map.entry("controller.quorum.voters", "1@127.0.0.1:9093"),
                Map.entry("default.replication.factor", "1"), Map.entry("min.insync.replicas", "1"),
                Map.entry("offsets.topic.replication.factor", "1"), Map.entry("transaction.state.log.min.isr", "1"));
    }

    @Test
    void aSecuredNodeAuthenticatesBetweenBrokersAsTheBrokerUserAndBetweenControllersOverPlain(@TempDir Path dir) {
        List<ClusterMembership.Voter> three = List.of(new ClusterMembership.Voter(1, 42001), new ClusterMembership.Voter(2, 42002),
                new ClusterMembership.Voter(3, 42003));
        Properties p = BrokerMain.securedServerConfig(dir, 41003, 3, three, Map.of("broker", "b0b0", KafkaCredentials.CONTROLLER_USER, "c0c0"));
        assertThat(p.getProperty("listeners")).isEqualTo("CLIENT://127.0.0.1:41003,CONTROLLER://127.0.0.1:42003");
        assertThat(p.getProperty("inter.broker.listener.name")).isEqualTo("CLIENT");
        assertThat(p.getProperty("sasl.mechanism.inter.broker.protocol")).isEqualTo("SCRAM-SHA-512");
        assertThat(p.getProperty("listener.name.client.scram-sha-512.sasl.jaas.config")).contains("username=\"broker\" password=\"b0b0\"");
        assertThat(p.getProperty("sasl.mechanism.controller.protocol")).isEqualTo("PLAIN");
        assertThat(p.getProperty("controller.quorum.voters")).isEqualTo("1@127.0.0.1:42001,2@127.0.0.1:42002,3@127.0.0.1:42003");
        assertThat(p.getProperty("super.users")).contains("User:broker", "User:controller");
        assertThat(p.getProperty("default.replication.factor")).isEqualTo("3");
    }

    @Test
    void theChildIsToldItsNodeIdClusterIdAndEveryVoter(@TempDir Path dir) {
        BrokerOptions node = BrokerCluster.plan(BrokerOptions.ephemeral(dir), 3, "AbCdEfGhIjKlMnOpQrStUv", PORTS).get(1);
        List<String> command = BrokerProcess.command(node, node.port());
        assertThat(String.join(" ", command)).contains("--port 41002", "--node-id 2", "--cluster-id AbCdEfGhIjKlMnOpQrStUv",
                "--quorum-voters 1@127.0.0.1:42001,2@127.0.0.1:42002,3@127.0.0.1:42003");
        assertThat(String.join(" ", BrokerProcess.command(BrokerOptions.ephemeral(dir), 9092))).doesNotContain("--node-id", "--quorum-voters");
    }

    @Test
    void membershipRefusesWhatKafkaWouldOnlyRefuseAtStart() {
        List<ClusterMembership.Voter> two = List.of(new ClusterMembership.Voter(1, 42001), new ClusterMembership.Voter(2, 42002));
        assertThatThrownBy(() -> new ClusterMembership(3, "AbCdEfGhIjKlMnOpQrStUv", two)).hasMessageContaining("not one of the voters");
        assertThatThrownBy(() -> new ClusterMembership(1, "-bCdEfGhIjKlMnOpQrStUv", two)).hasMessageContaining("'-'");
        assertThatThrownBy(() -> new ClusterMembership(1, "AbCdEfGhIjKlMnOpQrStUv",
                List.of(new ClusterMembership.Voter(1, 42001), new ClusterMembership.Voter(2, 42001)))).hasMessageContaining("distinct");
        assertThatThrownBy(() -> BrokerMain.serverConfig(Path.of("k"), 42001, 1, two)).hasMessageContaining("same port");
        assertThatThrownBy(() -> BrokerOptions.ephemeral(Path.of("k")).asNode(Path.of("k", "node-1"), 0,
                new ClusterMembership(1, "AbCdEfGhIjKlMnOpQrStUv", two))).hasMessageContaining("fixed client port");
    }

    @Test
    void replicationIsTheNodeCountUpToThreeAndAcknowledgementsAllButOne() {
        assertThat(Stream.of(1, 2, 3, 5).map(ClusterMembership::replicationFactor)).containsExactly(1, 2, 3, 3);
        assertThat(Stream.of(1, 2, 3, 5).map(ClusterMembership::minInsyncReplicas)).containsExactly(1, 1, 2, 2);
    }

    @Test
    void freePortsAreDistinctAndClusterIdsReadAsKafkasOwn() {
        assertThat(BrokerCluster.freePorts(6)).doesNotHaveDuplicates().hasSize(6);
        assertThat(Stream.generate(ClusterMembership::newClusterId).limit(2_000))
                .allMatch(id -> id.length() == 22 && !id.startsWith("-"))
                .allMatch(id -> org.apache.kafka.common.Uuid.fromString(id).toString().equals(id));
    }
}
