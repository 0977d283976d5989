package io.streamhouse.drills;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.StatusFile;
import io.streamhouse.replay.Endpoints;
import org.apache.kafka.clients.admin.Admin;

import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.List;

/**
 * The member of a local cluster a cluster drill kills, chosen from the running cluster just before the load (the
 * broker leading the most decisions partitions, a TaskManager running the CEP job, the worker running the lake's
 * task), and how the drill knows the cluster recovered without it. The {@link RecoveryWatch} polls {@link #serving}
 * every 100 ms from the fault, then {@link #rejoined} until the killed member is back in its place.
 */
interface ClusterTarget {
    /** The supervised component the fault kills. */
    String component();

    /** That component as the supervisor reported it when it was chosen. */
    ChildStatus before();

    /** Reads what the recovery is compared with (the job's checkpoints), right before the kill. */
    void beforeFault();

    /** The cluster serves again without the killed member. */
    boolean serving(long faultAt);

    /** The killed member is back in its place. */
    boolean rejoined(long faultAt);

    ClusterRecovery figures();

    /** Chooses the target of {@code scenario}; {@code null} for a scenario that is not a cluster one. */
    static ClusterTarget choose(Scenario scenario, Admin admin, Path data, HttpClient http, PrintStream log) throws Exception {
        ClusterTarget target = switch (scenario) {
            case KILL_BROKER_LEADER -> LeaderTarget.choose(admin, data);
            case KILL_TASKMANAGER -> TaskManagerTarget.choose(http, data);
            case KILL_CONNECT_WORKER -> ConnectWorkerTarget.choose(http, admin, data);
            default -> null;
        };
        if (target != null) {
            log.println("  target: " + target.component() + ", " + target.figures().chosenBecause());
        }
        return target;
    }

    /** Every component of the stack, as the supervisor's status file reports them. */
    static List<ChildStatus> components(Path data) {
        return StatusFile.read(data.resolve(StatusFile.NAME)).map(StatusFile.Snapshot::components)
                .orElseThrow(() -> new Endpoints.EnvironmentException("no " + data.resolve(StatusFile.NAME) + ": start the stack first"));
    }

    /** {@code component} as the supervisor reports it, running. */
    static ChildStatus running(Path data, String component) {
        ChildStatus c = Preflight.component(data, component).orElseThrow(() -> new Endpoints.EnvironmentException(
                "this stack runs no " + component + " (" + data.resolve(StatusFile.NAME) + ")"));
        if (c.state() != ChildState.RUNNING) {
            throw new Endpoints.EnvironmentException(component + " is " + c.state().label() + ", not running: ./streamhouse status");
        }
        return c;
    }

    /** {@code before}'s component running again in another process. */
    static boolean runningAnew(Path data, ChildStatus before) {
        return Preflight.component(data, before.name()).filter(c -> c.state() == ChildState.RUNNING && c.pid() != before.pid()).isPresent();
    }
}
