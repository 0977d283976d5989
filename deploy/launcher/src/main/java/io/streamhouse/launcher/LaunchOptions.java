package io.streamhouse.launcher;

import io.streamhouse.platform.PlatformOptions;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The launcher's command line. */
record LaunchOptions(String command, Path home, Path data, int ingestPort, int apiPort, int kafkaPort, int registryPort,
                     int demoCount, long seed, boolean exitAfterDemo, boolean fresh, boolean purge,
                     Set<Part> without, String component, io.streamhouse.lakequery.MaintenanceSettings maintenance,
                     ClusterPlan plan) {

    /** At most this many api instances on one machine ({@code --api-instances}). */
    static final int MAX_API_INSTANCES = 3;
    /** At most this many ingest instances on one machine ({@code --ingest-instances}). */
    static final int MAX_INGEST_INSTANCES = 3;

    /** Commands sent to a running launcher about one of its components ({@code ./streamhouse kill api}). */
    static final Set<String> CONTROL_COMMANDS = Set.of("kill", "restart", "stop", "start");

    /**
     * Parts of the stack that may be left out ({@code --without}): where they run elsewhere (a Connect cluster, a
     * Flink cluster, a lake fed by another sink), or to measure the serving path alone on one machine. The broker, registry, PostgreSQL and the
     * two apps are always started.
     */
    enum Part {
        /** The Kafka Connect worker with the Debezium connector (and so the CDC demo). */
        CDC,
        /** The Flink CEP job. */
        CEP,
        /** The lake's query service (Flink batch SQL in a child JVM) behind the api's {@code POST /v1/sql}. */
        SQL,
        /** The Iceberg sink landing every event topic in the lake (in the Kafka Connect worker). */
        LAKE
    }

    static final String USAGE = """
            usage: ./streamhouse up [--demo N] [--seed S] [--no-demo] [--fresh] [--exit-after-demo]
                                    [--without cdc|cep|lake|sql, comma-separated]
                                    [--ingest-port P] [--api-port P] [--kafka-port P] [--registry-port P] [--data DIR]
                                    [--api-instances 1-3]   (instance k>=2 is component api-k on --api-port + k-1,
                                                             or a free port when --api-port is 0)
                                    [--ingest-instances 1-3] (instance k>=2 is component ingest-k on a free port;
                                                             endpoints.properties and the start's output name it)
                                    [--cluster]  (a local cluster of the real engines: --brokers 3 --task-managers 2
                                                  --connect-workers 2 --api-instances 2 --ingest-instances 2; each
                                                  count may be given after it; refused when the memory is too little)
                                    [--brokers 1|3] [--task-managers 0-3] (0: the CEP job in one JVM) [--connect-workers 1-3]
                                    [--maintenance on|off] [--maintenance-interval PT10M] [--snapshot-max-age PT1H]
                                    [--retain-last 10] [--target-file-size 134217728] [--orphan-min-age PT24H]
                                    (the lake's maintenance, run by the query service: docs/lake.md)
                   ./streamhouse down [--purge]   (--purge also drops the CDC replication slot and publication)
                   ./streamhouse status            (each component's state, pid, restarts, last exit; exit 0 only if all run)
                   ./streamhouse kill|restart|stop|start <component>
                                   (kill -9 / clean stop and start / stop / start of broker, connect, ingest, ingest-2,
                                    ingest-3, api, api-2, api-3, cep, sql in the running stack; on a cluster also broker-2,
                                    broker-3, connect-2, connect-3, flink-jobmanager, flink-taskmanager-N; a killed
                                    component is restarted by the supervisor)
                   ./streamhouse console [--role reviewer|ops|rules-admin|analyst|payments]
                                   (a link that signs a browser into the running stack's console with that role)
                   ./streamhouse demo [--demo N] [--seed S]   (the demo again, run by the running stack's launcher)
                   ./streamhouse generate [--events N] [--seed S] ...   (the seeded generator's traffic to the running stack)
                   ./streamhouse score [--truth DIR] [--timeout PT2M]   (its alerts against the generator's ground truth)
                   every command takes --data DIR to pick the installation (default ./.streamhouse)
                   up --verbose keeps the libraries' log lines on the terminal (otherwise <data>/logs/launcher.log)""";

    static LaunchOptions parse(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("a command is required");
        }
        String command = args[0];
        Path home = Path.of(System.getProperty("streamhouse.home", ".")).toAbsolutePath().normalize();
        int ingest = 8081, api = 8082, kafka = 9092, registry = 8085, demo = 50;
        boolean cluster = false;
        Integer brokers = null, taskManagers = null, connectWorkers = null, apiInstances = null, ingestInstances = null;
        long seed = 42;
        Path data = null;
        boolean exit = false, fresh = false, purge = false;
        Set<Part> without = EnumSet.noneOf(Part.class);
        String component = null;
        java.util.Map<String, String> maintenance = new java.util.HashMap<>();
        int first = 1;
        if (CONTROL_COMMANDS.contains(command)) {
            if (args.length < 2 || args[1].startsWith("--")) {
                throw new IllegalArgumentException(command + " needs a component: broker, connect, ingest (ingest-2, ... with --ingest-instances), api (api-2, ... with --api-instances), cep or sql");
            }
            component = args[1];
            first = 2;
        }
        for (int i = first; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--demo" -> demo = positive(a, value(args, ++i, a));
                case "--no-demo" -> demo = 0;
                case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
                case "--exit-after-demo" -> exit = true;
                case "--fresh" -> fresh = true;
                case "--verbose" -> {
                    // read by Launcher.main before parsing: library logging stays on the terminal
                }
                case "--purge" -> purge = true;
                case "--without" -> without.addAll(parts(a, value(args, ++i, a)));
                case "--data" -> data = Path.of(value(args, ++i, a)).toAbsolutePath().normalize();
                case "--ingest-port" -> ingest = port(a, value(args, ++i, a));
                case "--api-port" -> api = port(a, value(args, ++i, a));
                case "--kafka-port" -> kafka = port(a, value(args, ++i, a));
                case "--registry-port" -> registry = port(a, value(args, ++i, a));
                case "--api-instances" -> apiInstances = instances(a, value(args, ++i, a), MAX_API_INSTANCES);
                case "--ingest-instances" -> ingestInstances = instances(a, value(args, ++i, a), MAX_INGEST_INSTANCES);
                case "--cluster" -> cluster = true;
                case "--brokers" -> brokers = integer(a, value(args, ++i, a));
                case "--task-managers" -> taskManagers = integer(a, value(args, ++i, a));
                case "--connect-workers" -> connectWorkers = integer(a, value(args, ++i, a));
                case "--maintenance", "--maintenance-interval", "--snapshot-max-age", "--retain-last", "--target-file-size",
                     "--orphan-min-age" -> maintenance.put(a.substring(2), value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        ClusterPlan base = cluster ? ClusterPlan.CLUSTER : ClusterPlan.single();
        ClusterPlan plan = new ClusterPlan(brokers == null ? base.brokers() : brokers,
                taskManagers == null ? base.taskManagers() : taskManagers,
                connectWorkers == null ? base.connectWorkers() : connectWorkers,
                apiInstances == null ? base.apiInstances() : apiInstances,
                ingestInstances == null ? base.ingestInstances() : ingestInstances);
        var options = new LaunchOptions(command, home, data == null ? home.resolve(".streamhouse") : data, ingest, api, kafka, registry, demo, seed, exit, fresh, purge,
                Set.copyOf(without), component, io.streamhouse.lakequery.MaintenanceSettings.fromArgs(maintenance), plan);
        if (api != 0 && api + plan.apiInstances() - 1 > 65535) {
            throw new IllegalArgumentException("--api-port " + api + " leaves no room for " + plan.apiInstances() + " api instances (ports "
                    + api + "-" + (api + plan.apiInstances() - 1) + ")");
        }
        return options;
    }

    int apiInstances() {
        return plan.apiInstances();
    }

    int ingestInstances() {
        return plan.ingestInstances();
    }

    /** The supervised component of api instance {@code k} (1-based): {@code api}, then {@code api-2}, {@code api-3}. */
    static String apiComponent(int k) {
        return k == 1 ? "api" : "api-" + k;
    }

    /** Its state directory under the data directory: its own, since the instance id is derived from it (InstanceIdentity). */
    static String apiStateDir(int k) {
        return k == 1 ? "api-state" : "api-state-" + k;
    }

    /** The supervised component of ingest instance {@code k} (1-based): {@code ingest}, then {@code ingest-2}, {@code ingest-3}. */
    static String ingestComponent(int k) {
        return k == 1 ? "ingest" : "ingest-" + k;
    }

    /** Its CDC normaliser's Kafka Streams state directory under the data directory: one per instance. */
    static String ingestCdcStateDir(int k) {
        return k == 1 ? "ingest-cdc-state" : "ingest-cdc-state-" + k;
    }

    /**
     * How the ingest instances read their authorize answers ({@code STREAMHOUSE_AUTHORIZE_REPLIES}): as configured if it
     * is; otherwise each its own reply partition when there are several (less CPU in ingest than every instance
     * reading every decision: docs/benchmarks.md), and the app's default (every decision) for one.
     */
    static java.util.Optional<String> authorizeReplies(int ingestInstances, String configured) {
        if (configured != null && !configured.isBlank()) {
            return java.util.Optional.of(configured);
        }
        return ingestInstances > 1 ? java.util.Optional.of("partition") : java.util.Optional.empty();
    }

    /** Its partition of the authorize replies topic (read with {@code STREAMHOUSE_AUTHORIZE_REPLIES=partition}): k-1. */
    static int ingestReplyPartition(int k) {
        return k - 1;
    }

    /** Instance {@code k} (1-based) of the api: {@code --api-port} + k-1, or 0 (a free port) when that is 0. */
    int apiPort(int k) {
        return apiPort == 0 ? 0 : apiPort + k - 1;
    }

    boolean runs(Part part) {
        return !without.contains(part);
    }

    private static Set<Part> parts(String option, String raw) {
        Set<Part> parts = EnumSet.noneOf(Part.class);
        for (String name : raw.split(",")) {
            try {
                parts.add(Part.valueOf(name.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + " takes cdc, cep, lake, sql or several (cdc,cep), not '" + name.trim() + "'");
            }
        }
        return parts;
    }

    PlatformOptions platformOptions(Path dataDir) {
        return PlatformOptions.forLauncher(dataDir).withKafkaPort(kafkaPort).withRegistryPort(registryPort).withBrokers(plan.brokers());
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positive(String option, String raw) {
        int v = Integer.parseInt(raw);
        if (v < 1 || v > 100_000) {
            throw new IllegalArgumentException(option + " must be between 1 and 100000");
        }
        return v;
    }

    private static int instances(String option, String raw, int max) {
        int v = integer(option, raw);
        if (v < 1 || v > max) {
            throw new IllegalArgumentException(option + " must be between 1 and " + max + ", not " + v);
        }
        return v;
    }

    private static int integer(String option, String raw) {
        try {
            return Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number, not '" + raw + "'");
        }
    }

    private static int port(String option, String raw) {
        int v = Integer.parseInt(raw);
        if (v < 0 || v > 65535) {
            throw new IllegalArgumentException(option + " must be a port number (0 picks a free one)");
        }
        return v;
    }
}
