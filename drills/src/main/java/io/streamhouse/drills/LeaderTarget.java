package io.streamhouse.drills;

import io.streamhouse.control.ChildStatus;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.clients.admin.Admin;

import java.nio.file.Path;
import java.util.List;

/**
 * kill-broker-leader: the node leading the most partitions of {@code payments.transactions.decisions}. Serving again:
 * every partition of the topic has a leader and none is the killed node (the controller fenced it and elected
 * followers from the ISR). Rejoined: the restarted node is back in every partition's ISR.
 */
final class LeaderTarget implements ClusterTarget {
    static final String TOPIC = Topics.TRANSACTION_DECISIONS.name();

    private final Admin admin;
    private final Path data;
    private final int node;
    private final ChildStatus before;
    private final String chosenBecause;
    private final List<String> placementBefore;
    private volatile List<String> placementAfter = List.of();
    private volatile Long rejoinedAfterMs;

    private LeaderTarget(Admin admin, Path data, int node, ChildStatus before, String chosenBecause, List<String> placementBefore) {
        this.admin = admin;
        this.data = data;
        this.node = node;
        this.before = before;
        this.chosenBecause = chosenBecause;
        this.placementBefore = placementBefore;
    }

    static LeaderTarget choose(Admin admin, Path data) throws Exception {
        BrokerLeaders leaders = BrokerLeaders.describe(admin, TOPIC);
        int node = leaders.busiestLeader();
        String component = BrokerLeaders.component(node);
        return new LeaderTarget(admin, data, node, ClusterTarget.running(data, component),
                "node " + node + " led " + leaders.ledPerNode().get(node) + " of " + leaders.leaders().size() + " partitions of " + TOPIC,
                leadersOf(leaders));
    }

    /** One entry a partition, {@code <partition> → <leader>}, as the report shows placement. */
    private static List<String> leadersOf(BrokerLeaders l) {
        return l.leaders().entrySet().stream().map(e -> e.getKey() + "→" + e.getValue()).toList();
    }

    @Override
    public String component() {
        return before.name();
    }

    @Override
    public ChildStatus before() {
        return before;
    }

    @Override
    public void beforeFault() {
        // the leaders were read when chosen, a moment ago
    }

    @Override
    public boolean serving(long faultAt) {
        try {
            BrokerLeaders now = BrokerLeaders.describe(admin, TOPIC);
            if (now.movedOff(node)) {
                placementAfter = leadersOf(now);
                return true;
            }
            return false;
        } catch (Exception clusterBusy) {
            return false;
        }
    }

    @Override
    public boolean rejoined(long faultAt) {
        try {
            if (BrokerLeaders.describe(admin, TOPIC).inEveryIsr(node) && ClusterTarget.runningAnew(data, before)) {
                rejoinedAfterMs = System.currentTimeMillis() - faultAt;
                return true;
            }
            return false;
        } catch (Exception clusterBusy) {
            return false;
        }
    }

    @Override
    public ClusterRecovery figures() {
        return new ClusterRecovery(component(), chosenBecause, "every partition of " + TOPIC + " led by a node other than " + node,
                placementBefore, placementAfter, rejoinedAfterMs, "node " + node + " restarted and back in the ISR of every partition of " + TOPIC,
                null, null);
    }
}
