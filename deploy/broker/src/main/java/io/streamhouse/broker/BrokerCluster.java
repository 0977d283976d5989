package io.streamhouse.broker;

import io.streamhouse.security.kafka.KafkaCredentials;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.supervisor.Supervisor;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The Kafka of a stack: one broker as today, or a cluster of KRaft nodes (each a combined broker and controller, each
 * its own child JVM) on 127.0.0.1, each node its own component under the supervisor ({@code broker}, {@code broker-2},
 * {@code broker-3}), so a node that dies is restarted on its ports with its storage and rejoins.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>One node is exactly {@link BrokerProcess#start(BrokerOptions, Supervisor)} with the options given.</li>
 *   <li>N nodes: every node is formatted with one cluster id (kept in {@value #CLUSTER_ID_FILE} beside the nodes'
 *       directories, so a persistent cluster keeps it across runs), knows every node's controller port, has its own
 *       data directory {@code node-<id>}, client port (the options' port plus {@code id - 1}, or free ports when 0) and
 *       controller port (free ports, fixed for the life of this object, so a restarted node comes back where its peers
 *       expect it). With credentials, the passwords are written once by this class before any node starts, so every
 *       node formats the same SCRAM users and runs the same ACL authorizer.</li>
 *   <li>{@link #start} returns once every node answered through its client listener, or throws having stopped the
 *       nodes it started. The nodes start together: a node is ready only once a quorum of them runs.</li>
 * </ul>
 */
public final class BrokerCluster implements AutoCloseable {

    /** The shared cluster id of a cluster's storage, in the cluster's directory. */
    public static final String CLUSTER_ID_FILE = "cluster.id";

    private final List<BrokerProcess> nodes;
    private final String clusterId;

    private BrokerCluster(List<BrokerProcess> nodes, String clusterId) {
        this.nodes = List.copyOf(nodes);
        this.clusterId = clusterId;
    }

    /**
     * Starts {@code nodeCount} nodes from {@code options} (its data directory becomes the cluster's directory, holding
     * one {@code node-<id>} directory per node, when {@code nodeCount > 1}) and waits until each accepts requests.
     */
    public static BrokerCluster start(BrokerOptions options, int nodeCount, Supervisor supervisor) {
        if (nodeCount < 1) {
            throw new IllegalArgumentException("a Kafka cluster has at least one node, asked for " + nodeCount);
        }
        if (nodeCount == 1) {
            return new BrokerCluster(List.of(BrokerProcess.start(options, supervisor)), null);
        }
        if (options.secured()) {
            // Here, once, before any node starts: each node writes a missing password itself, and three nodes doing so
            // at once each wrote their own (the last writer's file wins), so nodes formatted different SCRAM secrets
            // and refused each other's logins.
            List<String> users = new ArrayList<>(Arrays.stream(KafkaPrincipal.values()).map(KafkaPrincipal::userName).toList());
            users.add(KafkaCredentials.CONTROLLER_USER);
            KafkaCredentials.ensureAll(options.credentialsDir(), users);
        }
        List<BrokerOptions> plan = plan(options, nodeCount, clusterId(options), freePorts(options.port() == 0 ? 2 * nodeCount : nodeCount));
        // A thread per node, not the common pool: on 2 cores it runs one task at a time, and the first node waits for a quorum.
        ExecutorService threads = Executors.newFixedThreadPool(nodeCount);
        List<CompletableFuture<BrokerProcess>> starts = new ArrayList<>();
        for (BrokerOptions node : plan) {
            starts.add(CompletableFuture.supplyAsync(() -> BrokerProcess.start(node, supervisor), threads));
        }
        threads.shutdown();
        List<BrokerProcess> started = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<BrokerProcess> start : starts) {
            try {
                started.add(start.join());
            } catch (CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException re ? re : e;
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        BrokerCluster cluster = new BrokerCluster(started, plan.get(0).cluster().clusterId());
        if (failure != null) {
            cluster.killAndStop();
            throw failure;
        }
        return cluster;
    }

    /**
     * Each node's options: node {@code i} (1-based) in {@code <dataDir>/node-i}, its client port the options' port plus
     * {@code i - 1} (or the free port {@code i - 1} when the options say 0), the free ports after those for the
     * controllers.
     *
     * @param freePorts {@code 2 * nodeCount} distinct ports when the options' port is 0, else {@code nodeCount}
     */
    static List<BrokerOptions> plan(BrokerOptions options, int nodeCount, String clusterId, List<Integer> freePorts) {
        boolean freeClientPorts = options.port() == 0;
        if (!freeClientPorts && options.port() + nodeCount - 1 > 65_535) {
            throw new IllegalArgumentException("client ports " + options.port() + ".." + (options.port() + nodeCount - 1) + " exceed 65535");
        }
        int controllerOffset = freeClientPorts ? nodeCount : 0;
        List<ClusterMembership.Voter> voters = new ArrayList<>();
        for (int id = 1; id <= nodeCount; id++) {
            voters.add(new ClusterMembership.Voter(id, freePorts.get(controllerOffset + id - 1)));
        }
        List<BrokerOptions> nodes = new ArrayList<>();
        for (int id = 1; id <= nodeCount; id++) {
            int clientPort = freeClientPorts ? freePorts.get(id - 1) : options.port() + id - 1;
            if (voters.stream().anyMatch(v -> v.controllerPort() == clientPort)) {
                throw new IllegalStateException("client port " + clientPort + " was handed out as a controller port too");
            }
            nodes.add(options.asNode(options.dataDir().resolve("node-" + id), clientPort, new ClusterMembership(id, clusterId, voters)));
        }
        return nodes;
    }

    /** The id in the cluster's directory, or a new one written there (a wiping start always takes a new one). */
    private static String clusterId(BrokerOptions options) {
        Path file = options.dataDir().resolve(CLUSTER_ID_FILE);
        try {
            if (!options.wipeOnStart() && Files.exists(file)) {
                return Files.readString(file).strip();
            }
            Files.createDirectories(options.dataDir());
            String id = ClusterMembership.newClusterId();
            Files.writeString(file, id + "\n");
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the cluster id in " + file, e);
        }
    }

    /** {@code count} distinct free ports on 127.0.0.1, all held at once while they are chosen. */
    static List<Integer> freePorts(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a listening socket we opened: nothing to do
                }
            }
        }
    }

    /** {@code bootstrap.servers} naming every node, node 1 first. */
    public String bootstrapServers() {
        return nodes.stream().map(BrokerProcess::bootstrapServers).collect(Collectors.joining(","));
    }

    public int size() {
        return nodes.size();
    }

    /** Replicas of a topic on this cluster: the node count, up to 3. */
    public int replicationFactor() {
        return ClusterMembership.replicationFactor(nodes.size());
    }

    /** In-sync replicas an acks=all write needs: 2 on three nodes, 1 on one. */
    public int minInsyncReplicas() {
        return ClusterMembership.minInsyncReplicas(nodes.size());
    }

    /** The shared cluster id of a cluster's storage; empty for a single broker (its storage holds a random one). */
    public Optional<String> clusterId() {
        return Optional.ofNullable(clusterId);
    }

    /** The nodes, node 1 first. */
    public List<BrokerProcess> nodes() {
        return nodes;
    }

    /** Node {@code nodeId} (1-based). */
    public BrokerProcess node(int nodeId) {
        if (nodeId < 1 || nodeId > nodes.size()) {
            throw new IllegalArgumentException("no node " + nodeId + " in a cluster of " + nodes.size());
        }
        return nodes.get(nodeId - 1);
    }

    /** The current PID of each node's JVM, by node id. */
    public Map<Integer, Long> pids() {
        Map<Integer, Long> pids = new LinkedHashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            pids.put(i + 1, nodes.get(i).pid());
        }
        return pids;
    }

    /**
     * The node id leading each partition of {@code topic} as the cluster answers now, by partition; -1 for a partition
     * without a leader (every replica down).
     */
    public static Map<Integer, Integer> leaders(Admin admin, String topic) {
        try {
            List<TopicPartitionInfo> partitions = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(topic).partitions();
            Map<Integer, Integer> leaders = new LinkedHashMap<>();
            for (TopicPartitionInfo p : partitions) {
                Node leader = p.leader();
                leaders.put(p.partition(), leader == null || leader.isEmpty() ? -1 : leader.id());
            }
            return leaders;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe " + topic + ": " + e.getMessage(), e);
        }
    }

    /** Hands stopping over to the owner, as {@link BrokerProcess#releaseShutdownHook()} for each node. */
    public void releaseShutdownHook() {
        nodes.forEach(BrokerProcess::releaseShutdownHook);
    }

    /** Kills every node ({@code kill -9}) and keeps them down: for data that is deleted next. */
    public void killAndStop() {
        eachAtOnce(n -> n.supervised().killAndStop());
    }

    /**
     * Stops every node cleanly, all at once: a node stopping alone would wait on a quorum that the others' stop takes
     * away, so they stop together and each halts after its grace at the latest. Idempotent.
     */
    @Override
    public void close() {
        eachAtOnce(BrokerProcess::close);
    }

    private void eachAtOnce(java.util.function.Consumer<BrokerProcess> action) {
        List<Thread> threads = new ArrayList<>();
        for (BrokerProcess n : nodes) {
            Thread t = new Thread(() -> action.accept(n), "stop-" + n.supervised().name());
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "BrokerCluster[" + bootstrapServers() + ", pids " + pids() + "]";
    }
}
