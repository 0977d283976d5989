package io.streamhouse.drills;

/** The faults, each on one supervised component. */
enum Scenario {
    KILL_API("kill-api", "api"), WIPE_API_STATE("wipe-api-state", "api"), RESTART_BROKER("restart-broker", "broker"),
    KILL_CONNECT("kill-connect", "connect"), KILL_CEP("kill-cep", "cep");

    final String label;
    final String component;

    Scenario(String label, String component) {
        this.label = label;
        this.component = component;
    }

    boolean onApi() {
        return component.equals("api");
    }
}
