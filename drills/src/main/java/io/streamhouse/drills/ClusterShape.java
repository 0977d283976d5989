package io.streamhouse.drills;

import io.streamhouse.replay.Endpoints;

import java.util.List;
import java.util.regex.Pattern;

/**
 * What a cluster drill needs of the stack, read from the supervisor's component names ({@code broker}, {@code broker-2},
 * {@code flink-taskmanager-1}, {@code connect-2}, …): a stack of one broker, the CEP job in one JVM or one Connect
 * worker is refused before any load, with the option that starts what is missing.
 */
final class ClusterShape {
    private static final Pattern BROKER = Pattern.compile("broker(-\\d+)?");
    private static final Pattern TASK_MANAGER = Pattern.compile("flink-taskmanager-\\d+");
    private static final Pattern CONNECT_WORKER = Pattern.compile("connect(-\\d+)?");
    static final String JOB_MANAGER = "flink-jobmanager";

    static long brokers(List<String> components) {
        return components.stream().filter(c -> BROKER.matcher(c).matches()).count();
    }

    static long taskManagers(List<String> components) {
        return components.stream().filter(c -> TASK_MANAGER.matcher(c).matches()).count();
    }

    static long connectWorkers(List<String> components) {
        return components.stream().filter(ClusterShape::isConnectWorker).count();
    }

    static boolean isConnectWorker(String component) {
        return CONNECT_WORKER.matcher(component).matches();
    }

    /** @throws Endpoints.EnvironmentException when {@code components} lack the cluster {@code scenario} faults */
    static void require(Scenario scenario, List<String> components) {
        switch (scenario) {
            case KILL_BROKER_LEADER -> {
                long n = brokers(components);
                if (n < 3) {
                    throw refused(scenario, "--brokers 3", "this stack runs " + count(n, "broker", "brokers")
                            + ": a leader's partitions need followers in sync to move to");
                }
            }
            case KILL_TASKMANAGER -> {
                long n = taskManagers(components);
                if (n < 2 || !components.contains(JOB_MANAGER)) {
                    String runs = components.contains("cep") ? "the CEP job in one JVM (component cep; kill-cep faults it)"
                            : n == 1 ? "one TaskManager" : "no Flink session cluster";
                    throw refused(scenario, "--task-managers 2", "this stack runs " + runs
                            + ": the job must restore on a TaskManager that survives");
                }
            }
            case KILL_CONNECT_WORKER -> {
                long n = connectWorkers(components);
                if (n < 2) {
                    throw refused(scenario, "--connect-workers 2", "this stack runs " + count(n, "Connect worker", "Connect workers")
                            + (n == 1 ? " (kill-connect faults it)" : "") + ": its tasks need another worker of the group to move to");
                }
            }
            default -> {
                // the single-process scenarios run on any stack that has their component
            }
        }
    }

    private static Endpoints.EnvironmentException refused(Scenario scenario, String option, String why) {
        return new Endpoints.EnvironmentException(scenario.label + " needs ./streamhouse up --cluster (or " + option + "): " + why);
    }

    private static String count(long n, String one, String many) {
        return n == 0 ? "no " + many : n == 1 ? "one " + one : n + " " + many;
    }

    private ClusterShape() {
    }
}
