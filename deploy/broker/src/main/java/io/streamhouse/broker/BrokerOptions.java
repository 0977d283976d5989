package io.streamhouse.broker;

import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How to start a broker child JVM.
 *
 * @param dataDir     directory of the broker's storage ({@code kraft/}) and log ({@code broker.log}); created if missing
 * @param port        client port on 127.0.0.1; 0 lets the child pick a free one
 * @param wipeOnStart delete {@code dataDir} before the start (tests); false keeps topics and records (launcher)
 * @param maxHeap     the child's {@code -Xmx} value, e.g. {@code "384m"}
 * @param fullJit     the JVM's full tiered JIT (C2): slower to warm up, but the broker then spends far less CPU per
 *                    record, which matters when it shares a small machine with the apps under load; false stops at C1,
 *                    which starts sooner and suits short test runs
 * @param credentialsDir null: one PLAINTEXT listener and no authorizer (tests on a shared broker). Otherwise the client
 *                    listener takes SASL/SCRAM-SHA-512 only, every request is authorized against ACLs (none means
 *                    denied) and this directory holds the users' passwords ({@code KafkaCredentials}): written and
 *                    registered as SCRAM credentials when the storage is formatted, read at every start
 * @param cluster     null: a single node (node id 1, its controller port picked by the child, a random cluster id at
 *                    format). Otherwise this node's place in a cluster ({@link BrokerCluster} fixes it for every node):
 *                    its node id, the shared cluster id, every voter's controller port; the port above must then be fixed
 */
public record BrokerOptions(Path dataDir, int port, boolean wipeOnStart, String maxHeap, boolean fullJit, Path credentialsDir,
                            ClusterMembership cluster) {

    /** Enough for development traffic. */
    public static final String DEFAULT_MAX_HEAP = "384m";

    private static final Pattern HEAP = Pattern.compile("\\d+[kKmMgG]?");

    public BrokerOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        dataDir = dataDir.toAbsolutePath().normalize();
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        maxHeap = maxHeap == null ? DEFAULT_MAX_HEAP : maxHeap;
        if (!HEAP.matcher(maxHeap).matches()) {
            throw new IllegalArgumentException("maxHeap must look like 384m or 1g, was " + maxHeap);
        }
        credentialsDir = credentialsDir == null ? null : credentialsDir.toAbsolutePath().normalize();
        if (cluster != null && port == 0) {
            throw new IllegalArgumentException("a cluster node needs a fixed client port, the others' clients are told it");
        }
    }

    /** A single node. */
    public BrokerOptions(Path dataDir, int port, boolean wipeOnStart, String maxHeap, boolean fullJit, Path credentialsDir) {
        this(dataDir, port, wipeOnStart, maxHeap, fullJit, credentialsDir, null);
    }

    /** No authentication (PLAINTEXT). */
    public BrokerOptions(Path dataDir, int port, boolean wipeOnStart, String maxHeap, boolean fullJit) {
        this(dataDir, port, wipeOnStart, maxHeap, fullJit, null);
    }

    /** The same broker with SASL/SCRAM and ACLs, its passwords in {@code dir}. */
    public BrokerOptions withCredentials(Path dir) {
        return new BrokerOptions(dataDir, port, wipeOnStart, maxHeap, fullJit, java.util.Objects.requireNonNull(dir, "dir"), cluster);
    }

    /** This broker as one node of a cluster: its own data directory and client port, and its membership. */
    public BrokerOptions asNode(Path nodeDataDir, int clientPort, ClusterMembership membership) {
        return new BrokerOptions(nodeDataDir, clientPort, wipeOnStart, maxHeap, fullJit, credentialsDir,
                java.util.Objects.requireNonNull(membership, "membership"));
    }

    /**
     * Component name under the supervisor: {@value BrokerProcess#COMPONENT} for a single broker and for node 1 of a
     * cluster (what the launcher's kill/restart commands and status already name), {@code broker-<id>} for the others.
     */
    public String componentName() {
        return cluster == null || cluster.nodeId() == 1 ? BrokerProcess.COMPONENT : BrokerProcess.COMPONENT + "-" + cluster.nodeId();
    }

    public boolean secured() {
        return credentialsDir != null;
    }

    /** C1 only, as for tests. */
    public BrokerOptions(Path dataDir, int port, boolean wipeOnStart, String maxHeap) {
        this(dataDir, port, wipeOnStart, maxHeap, false, null);
    }

    /** A fresh broker on a free port whose data is wiped first: for tests. */
    public static BrokerOptions ephemeral(Path dataDir) {
        return new BrokerOptions(dataDir, 0, true, DEFAULT_MAX_HEAP);
    }

    /** A broker that keeps its data across restarts. */
    public static BrokerOptions persistent(Path dataDir, int port) {
        return new BrokerOptions(dataDir, port, false, DEFAULT_MAX_HEAP);
    }
}
