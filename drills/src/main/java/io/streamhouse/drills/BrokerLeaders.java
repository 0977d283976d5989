package io.streamhouse.drills;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Who leads a topic's partitions and who is in sync, as Kafka's Admin client describes it, and the pure decisions
 * kill-broker-leader takes from that: which node to kill, when its partitions have moved, when it is back in every
 * ISR. Node {@code n} of a local cluster is the supervised component {@code broker} (node 1) or {@code broker-n}.
 *
 * @param leaders partition → leader node id, -1 while it has none
 * @param isr     partition → the node ids in sync
 */
record BrokerLeaders(Map<Integer, Integer> leaders, Map<Integer, List<Integer>> isr) {
    BrokerLeaders {
        leaders = Map.copyOf(leaders);
        isr = Map.copyOf(isr);
    }

    static BrokerLeaders describe(Admin admin, String topic) throws Exception {
        List<TopicPartitionInfo> partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
                .get(topic).partitions();
        Map<Integer, Integer> leaders = new TreeMap<>();
        Map<Integer, List<Integer>> isr = new TreeMap<>();
        for (TopicPartitionInfo p : partitions) {
            Node leader = p.leader();
            leaders.put(p.partition(), leader == null || leader.isEmpty() ? -1 : leader.id());
            isr.put(p.partition(), p.isr().stream().map(Node::id).toList());
        }
        return new BrokerLeaders(leaders, isr);
    }

    /** The supervised component of node {@code nodeId}, as the launcher names the nodes of a cluster. */
    static String component(int nodeId) {
        return nodeId == 1 ? "broker" : "broker-" + nodeId;
    }

    /** Partitions led per node (partitions without a leader left out). */
    Map<Integer, Long> ledPerNode() {
        return leaders.values().stream().filter(n -> n >= 0).collect(Collectors.groupingBy(n -> n, TreeMap::new, Collectors.counting()));
    }

    /**
     * The node that leads the most partitions; of equals, the lowest id (so a run can be repeated).
     *
     * @throws IllegalStateException when no partition has a leader
     */
    int busiestLeader() {
        return ledPerNode().entrySet().stream()
                .max(Comparator.<Map.Entry<Integer, Long>>comparingLong(Map.Entry::getValue).thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
                .map(Map.Entry::getKey)
                .orElseThrow(() -> new IllegalStateException("no partition has a leader: " + leaders));
    }

    /** Every partition has a leader, and none is {@code node}. */
    boolean movedOff(int node) {
        return !leaders.isEmpty() && leaders.values().stream().allMatch(l -> l >= 0 && l != node);
    }

    /** {@code node} is in every partition's ISR again. */
    boolean inEveryIsr(int node) {
        return !isr.isEmpty() && isr.values().stream().allMatch(in -> in.contains(node));
    }
}
