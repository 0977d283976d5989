package io.streamhouse.drills;

/**
 * The faults, each on one supervised component. The cluster scenarios choose their component from the running cluster
 * just before the fault ({@link ClusterTarget}); {@code component} is then the one checked in the preflight.
 */
enum Scenario {
    KILL_API("kill-api", "api"), WIPE_API_STATE("wipe-api-state", "api"), RESTART_BROKER("restart-broker", "broker"),
    KILL_CONNECT("kill-connect", "connect"), KILL_CEP("kill-cep", "cep"),
    KILL_BROKER_LEADER("kill-broker-leader", "broker"), KILL_TASKMANAGER("kill-taskmanager", "flink-taskmanager-1"),
    KILL_CONNECT_WORKER("kill-connect-worker", "connect");

    final String label;
    final String component;

    Scenario(String label, String component) {
        this.label = label;
        this.component = component;
    }

    boolean onApi() {
        return component.equals("api");
    }

    /** Needs a local cluster ({@code up --cluster}) and faults the component {@link ClusterTarget} picks. */
    boolean onCluster() {
        return this == KILL_BROKER_LEADER || this == KILL_TASKMANAGER || this == KILL_CONNECT_WORKER;
    }
}
