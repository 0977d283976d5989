package io.streamhouse.launcher;

import java.util.HashMap;
import java.util.List;
import java.util.function.Consumer;
import java.util.Map;

/**
 * Instances 2..N of the api ({@code --api-instances}) or of ingest ({@code --ingest-instances}), one after another
 * after the first: each join moves partitions, and on 2 cores a parallel start only slows both. Then the endpoints
 * file names every instance. In the steps only when there is more than one instance.
 */
final class InstancesStep implements StartStep {
    private final String app;

    private InstancesStep(String app) {
        this.app = app;
    }

    static InstancesStep api() {
        return new InstancesStep("api");
    }

    static InstancesStep ingest() {
        return new InstancesStep("ingest");
    }

    /** How many instances in all, the first included. */
    static int count(LaunchOptions options, String app) {
        return app.equals("api") ? options.apiInstances() : options.ingestInstances();
    }

    boolean needed(LaunchOptions options) {
        return count(options, app) > 1;
    }

    @Override
    public String name() {
        return app + "-instances";
    }

    /** After the first instances; more ingest instances after more api ones, so that one join moves partitions at a time. */
    @Override
    public java.util.Set<String> needs() {
        return app.equals("api") ? java.util.Set.of("ingest+api") : java.util.Set.of("ingest+api", "api-instances");
    }

    @Override
    public String announce(StartContext c) {
        int more = count(c.options, app) - 1;
        return app.equals("api")
                ? String.format("Starting %d more api instance(s): each its own port, state directory and static member id ...", more)
                : String.format("Starting %d more ingest instance(s): each its own port, CDC normaliser state and MQTT client id ...", more);
    }

    @Override
    public void start(StartContext c, Consumer<String> out) throws Exception {
        for (int k = 2; k <= count(c.options, app); k++) {
            Map<String, String> own;
            int port;
            if (app.equals("api")) {
                port = c.options.apiPort(k);
                own = Map.of("STREAMHOUSE_STATE_DIR", c.data.resolve(LaunchOptions.apiStateDir(k)).toString());
            } else {
                // Stateless on the request path: any instance takes any request and waits for its decision itself, on
                // its own reply partition (k-1) when they read their own replies. The MQTT client id is the host name by
                // default: two instances on one host would take each other's session.
                port = 0;
                own = Map.of(
                        "STREAMHOUSE_CDC_STATE_DIR", c.data.resolve(LaunchOptions.ingestCdcStateDir(k)).toString(),
                        "STREAMHOUSE_MQTT_INSTANCE_ID", hostName() + "-" + LaunchOptions.ingestComponent(k),
                        "STREAMHOUSE_AUTHORIZE_REPLY_PARTITION", Integer.toString(LaunchOptions.ingestReplyPartition(k)));
            }
            Map<String, String> environment = new HashMap<>(c.env);
            environment.putAll(own);
            String component = app.equals("api") ? LaunchOptions.apiComponent(k) : LaunchOptions.ingestComponent(k);
            AppProcess instance = AppProcess.start(component, c.options.home().resolve(app + "/target/quarkus-app/quarkus-run.jar"),
                    port, environment, c.logs(), app.equals("api") ? "512m" : "384m", c.stack.supervisor);
            (app.equals("api") ? c.stack.apiInstances : c.stack.ingestInstances).add(instance);
            out.accept(String.format("  %s on %s (%.1f s)", component, instance.url(), c.seconds()));
        }
        EndpointsFile.write(c.data, c.stack.platform, c.stack);
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }
}
