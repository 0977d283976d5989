package io.streamhouse.drills;

import io.streamhouse.control.ChildStatus;
import io.streamhouse.domain.topic.ConnectNames;
import io.streamhouse.replay.Endpoints;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * kill-connect-worker: the worker running the lake connector's task. Serving again: a worker's REST API reports every
 * task of the connector RUNNING, and the sink's consumer group {@code connect-lake} has a member that was not there
 * before the kill (the task was started anew: right after a kill -9 the status still says RUNNING on the dead worker,
 * and a worker restarted on the same port has the same {@code worker_id}). Where it runs then is reported, the other
 * worker or the restarted one, whichever the group's rebalance chose. Rejoined: the killed worker runs again in a new
 * process.
 */
final class ConnectWorkerTarget implements ClusterTarget {
    static final String CONNECTOR = ConnectNames.LAKE_CONNECTOR;

    private final HttpClient http;
    private final Admin admin;
    private final Path data;
    private final Map<String, String> workers;
    private final ChildStatus before;
    private final String workerId;
    private volatile Set<String> membersAtKill = Set.of();
    private volatile List<String> placementAfter = List.of();
    private volatile Long rejoinedAfterMs;

    private ConnectWorkerTarget(HttpClient http, Admin admin, Path data, Map<String, String> workers, ChildStatus before, String workerId) {
        this.http = http;
        this.admin = admin;
        this.data = data;
        this.workers = workers;
        this.before = before;
        this.workerId = workerId;
    }

    static ConnectWorkerTarget choose(HttpClient http, Admin admin, Path data) {
        Map<String, String> workers = new LinkedHashMap<>();
        ClusterTarget.components(data).stream().filter(c -> ClusterShape.isConnectWorker(c.name()))
                .forEach(c -> workers.put(c.name(), c.endpoint()));
        List<ConnectWorkers.Task> tasks = status(http, workers).orElseThrow(() -> new Endpoints.EnvironmentException(
                "no Connect worker of " + workers + " answered GET /connectors/" + CONNECTOR + "/status: ./streamhouse status"));
        String worker;
        try {
            worker = ConnectWorkers.busiestWorker(tasks);
        } catch (IllegalStateException none) {
            throw new Endpoints.EnvironmentException("the " + CONNECTOR + " connector runs no task: " + tasks);
        }
        String component = ConnectWorkers.componentOf(worker, workers).orElseThrow(() -> new Endpoints.EnvironmentException(
                "the " + CONNECTOR + " task runs on " + worker + ", which is none of the stack's workers " + workers));
        return new ConnectWorkerTarget(http, admin, data, workers, ClusterTarget.running(data, component), worker);
    }

    /** The connector's tasks, as the first worker that answers reports them. */
    private static Optional<List<ConnectWorkers.Task>> status(HttpClient http, Map<String, String> workers) {
        for (String url : workers.values()) {
            if (url == null || url.isBlank()) {
                continue;
            }
            Optional<List<ConnectWorkers.Task>> tasks = ConnectWorkers.read(http, URI.create(url.trim()), CONNECTOR);
            if (tasks.isPresent()) {
                return tasks;
            }
        }
        return Optional.empty();
    }

    private Set<String> members() {
        try {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(ConnectNames.LAKE_GROUP)).all().get(5, TimeUnit.SECONDS)
                    .get(ConnectNames.LAKE_GROUP);
            return d == null ? null : d.members().stream().map(MemberDescription::consumerId).collect(Collectors.toSet());
        } catch (Exception brokerBusy) {
            return null;
        }
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
        Set<String> m = members();
        membersAtKill = m == null ? Set.of() : m;
    }

    @Override
    public boolean serving(long faultAt) {
        Optional<List<ConnectWorkers.Task>> tasks = status(http, workers);
        if (tasks.isEmpty() || !ConnectWorkers.allRunning(tasks.get())) {
            return false;
        }
        Set<String> now = members();
        if (now == null) {
            return false;
        }
        Set<String> fresh = new HashSet<>(now);
        fresh.removeAll(membersAtKill);
        if (fresh.isEmpty()) {
            return false;
        }
        placementAfter = tasks.get().stream().map(t -> "task " + t.id() + " on " + ConnectWorkers.componentOf(t.workerId(), workers)
                .orElse(t.workerId()) + (t.workerId().equals(workerId) ? " (the restarted worker)" : "")).toList();
        return true;
    }

    @Override
    public boolean rejoined(long faultAt) {
        if (ClusterTarget.runningAnew(data, before)) {
            rejoinedAfterMs = System.currentTimeMillis() - faultAt;
            return true;
        }
        return false;
    }

    @Override
    public ClusterRecovery figures() {
        return new ClusterRecovery(component(), "it ran the " + CONNECTOR + " connector's task (" + workerId + ")",
                "every task of " + CONNECTOR + " RUNNING, started anew (a new member in " + ConnectNames.LAKE_GROUP + ")",
                List.of("task on " + component() + " (" + workerId + ")"), placementAfter, rejoinedAfterMs,
                component() + " running again in a new process", null, null);
    }
}
