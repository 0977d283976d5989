package io.streamhouse.broker;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One node's place in a cluster of KRaft nodes on 127.0.0.1, each a combined broker and controller: its node id, the
 * cluster id every node's storage is formatted with, and the controller port of every voter. JDK only, like
 * {@link BrokerProcess}: the parent fixes all of it before the first node starts, since each node's configuration
 * names every voter ({@code controller.quorum.voters}, a static quorum).
 *
 * @param nodeId    this node's id, one of the voters'
 * @param clusterId the id all nodes' storage is formatted with (a node formatted with another refuses to join)
 * @param voters    every node of the cluster, by node id and controller port
 */
public record ClusterMembership(int nodeId, String clusterId, List<Voter> voters) {

    /** The replication factor of a cluster's topics is at most this, whatever the node count. */
    public static final int MAX_REPLICATION_FACTOR = 3;

    /** A controller of the quorum: node id and its controller listener's port on 127.0.0.1. */
    public record Voter(int nodeId, int controllerPort) {
        public Voter {
            if (nodeId < 1) {
                throw new IllegalArgumentException("node ids start at 1, was " + nodeId);
            }
            if (controllerPort < 1 || controllerPort > 65_535) {
                throw new IllegalArgumentException("controller port must be 1..65535, was " + controllerPort);
            }
        }
    }

    public ClusterMembership {
        Objects.requireNonNull(clusterId, "clusterId");
        voters = List.copyOf(voters);
        if (clusterId.isEmpty() || clusterId.startsWith("-")) {
            throw new IllegalArgumentException("a cluster id is non-empty and does not start with '-', was '" + clusterId + "'");
        }
        if (voters.stream().map(Voter::nodeId).distinct().count() != voters.size()
                || voters.stream().map(Voter::controllerPort).distinct().count() != voters.size()) {
            throw new IllegalArgumentException("voters need distinct node ids and controller ports: " + voters);
        }
        if (voters.stream().noneMatch(v -> v.nodeId() == nodeId)) {
            throw new IllegalArgumentException("node " + nodeId + " is not one of the voters " + voters);
        }
    }

    /** This node's controller port. */
    public int controllerPort() {
        return voters.stream().filter(v -> v.nodeId() == nodeId).findFirst().orElseThrow().controllerPort();
    }

    /** {@code controller.quorum.voters}: {@code 1@127.0.0.1:p1,2@127.0.0.1:p2,…}. */
    public String quorumVoters() {
        return quorumVoters(voters);
    }

    static String quorumVoters(List<Voter> voters) {
        return voters.stream().map(v -> v.nodeId() + "@127.0.0.1:" + v.controllerPort()).collect(Collectors.joining(","));
    }

    /** Parses {@link #quorumVoters()} back (the child JVM's argument). */
    static List<Voter> parseVoters(String quorumVoters) {
        return java.util.Arrays.stream(quorumVoters.split(",")).map(s -> {
            String[] idAndHost = s.split("@", 2);
            String hostPort = idAndHost[1];
            return new Voter(Integer.parseInt(idAndHost[0]), Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1)));
        }).toList();
    }

    /** Replicas per partition: every node, up to {@value #MAX_REPLICATION_FACTOR}. */
    public int replicationFactor() {
        return replicationFactor(voters.size());
    }

    /** Replicas that must hold a record before acks=all is answered: all but one, at least one. */
    public int minInsyncReplicas() {
        return minInsyncReplicas(voters.size());
    }

    public static int replicationFactor(int nodes) {
        return Math.min(nodes, MAX_REPLICATION_FACTOR);
    }

    public static int minInsyncReplicas(int nodes) {
        return Math.max(1, replicationFactor(nodes) - 1);
    }

    /**
     * A random cluster id as Kafka writes them (16 random bytes, URL-safe base64 without padding, 22 characters),
     * never starting with '-', which the storage tool would read as an option.
     */
    public static String newClusterId() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[16];
        String id;
        do {
            random.nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        } while (id.startsWith("-"));
        return id;
    }
}
