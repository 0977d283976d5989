package io.streamhouse.drills;

import io.streamhouse.control.ChildStatus;
import io.streamhouse.replay.Endpoints;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * kill-taskmanager: a TaskManager running subtasks of the CEP job ({@code flink-taskmanager-1} when it runs any).
 * Serving again: the job went through a restart and every subtask runs again, on the TaskManagers left (each has the
 * slots for the whole job). The checkpoint it restored from is read from {@code /jobs/<id>/checkpoints}
 * ({@code latest.restored}) and compared with the latest one completed before the kill ({@link FlinkRestoreCheck}).
 * Rejoined: the supervisor runs the killed TaskManager again in a new process.
 */
final class TaskManagerTarget implements ClusterTarget {
    /** A TaskManager's component is {@code flink-} and its resource id ({@code taskmanager-<n>}), as the launcher names them. */
    static final String COMPONENT_PREFIX = "flink-";

    private final HttpClient http;
    private final Path data;
    private final FlinkJob job;
    private final ChildStatus before;
    private final List<String> placementBefore;
    private volatile FlinkJob.State atKill;
    private volatile FlinkJob.State recovered;
    private volatile List<String> placementAfter = List.of();
    private volatile Long rejoinedAfterMs;

    private TaskManagerTarget(HttpClient http, Path data, FlinkJob job, ChildStatus before, List<String> placementBefore) {
        this.http = http;
        this.data = data;
        this.job = job;
        this.before = before;
        this.placementBefore = placementBefore;
    }

    static TaskManagerTarget choose(HttpClient http, Path data) {
        FlinkJob job = FlinkJob.locate(http, ClusterTarget.running(data, ClusterShape.JOB_MANAGER).endpoint());
        FlinkJob.State state = job.read(http);
        if (state == null || !state.allRunning()) {
            throw new Endpoints.EnvironmentException("the CEP job " + job.jobId() + " at " + job.rest() + " is "
                    + (state == null ? "not answering" : state.state() + " with not every subtask running") + ": ./streamhouse status");
        }
        Set<String> placement = job.placement(http);
        return new TaskManagerTarget(http, data, job, ClusterTarget.running(data, componentToKill(placement)), new ArrayList<>(placement));
    }

    /** {@code flink-taskmanager-1} when it runs a subtask of the job (or nothing says where they run), else the first that does. */
    static String componentToKill(Set<String> placement) {
        if (placement.isEmpty() || placement.contains("taskmanager-1")) {
            return COMPONENT_PREFIX + "taskmanager-1";
        }
        return COMPONENT_PREFIX + placement.stream().sorted().findFirst().orElseThrow();
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
        atKill = job.read(http);
    }

    FlinkJob.State atKill() {
        return atKill;
    }

    FlinkJob.State recovered() {
        return recovered;
    }

    @Override
    public boolean serving(long faultAt) {
        FlinkJob.State now = job.read(http);
        if (now != null && atKill != null && FlinkJob.recovered(atKill, now, faultAt)) {
            recovered = now;
            placementAfter = new ArrayList<>(job.placement(http));
            return true;
        }
        return false;
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
        return new ClusterRecovery(component(), "it ran subtasks of the CEP job " + job.jobId() + " (on " + placementBefore + ")",
                "the job restarted (a restore, or RESTARTING after the kill) and RUNNING with every subtask running",
                placementBefore, placementAfter, rejoinedAfterMs, component() + " running again in a new process",
                atKill == null ? null : atKill.latestCompleted(), recovered == null ? null : recovered.latestRestored());
    }
}
