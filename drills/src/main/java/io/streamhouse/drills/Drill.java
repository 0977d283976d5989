package io.streamhouse.drills;

import io.streamhouse.replay.ReplayCli;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code replay drill <scenario>}: one fault under bounded load against the local stack, then the checks. The load is
 * open-loop synchronous authorizes plus asynchronous generator traffic (vehicle telemetry, parcel scans), all through
 * ingest. The fault goes through the launcher's control channel ({@code <data>/control}), as {@code ./streamhouse
 * kill|restart|stop|start} does. Recovery is measured from the fault: until the faulted component serves again, until
 * the first decided authorize, and until the lag of the groups it feeds is back under a bound. The checks: every
 * authorize has exactly one outcome on the log and the answers equal it; every accepted asynchronous event is on its
 * topic; no alert id twice; the projections equal a fresh rebuild; Iceberg equals Kafka when the lake runs; for
 * {@code kill-cep}, the job resumed from its newest retained checkpoint. Loopback only: every endpoint must be
 * 127.0.0.1, localhost or ::1. Exit 0 pass, 1 a check failed, 2 bad input, 3 environment.
 */
@Command(name = "drill", mixinStandardHelpOptions = true,
        subcommands = {Drill.KillApi.class, Drill.WipeApiState.class, Drill.RestartBroker.class, Drill.KillConnect.class,
                Drill.KillCep.class, Drill.KillBrokerLeader.class, Drill.KillTaskManager.class, Drill.KillConnectWorker.class,
                BurstDrill.class},
        description = "Resilience drills against the running local stack, under load, with loss and recovery checks.")
final class Drill implements Callable<Integer> {
    @CommandLine.ParentCommand
    ReplayCli parent;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ReplayCli.BAD_INPUT;
    }

    /** The asynchronous load's ceiling: ingest on this 2-core machine, beside the whole stack, answers well below it. */
    static final int MAX_ASYNC_RATE = 5000;
    static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "::1", "[::1]");
    /** The CEP job's consumer group and transactional-id prefix ({@code CepOptions}' default, which the launcher keeps). */
    static final String CEP_GROUP = "streamhouse-cep";
    static final String CEP_LOG = "cep.log";
    /** The first api instance's log, whose state directory (<data>/api-state) wipe-api-state wipes. */
    static final String API_LOG = "api.log";
    /** What {@code CepMain} prints when it resumes from a retained checkpoint. */
    static final Pattern RESUMED = Pattern.compile("\\[streamhouse-cep] resuming from (\\S+)");

    /** @throws ReplayCli.BadInput when {@code host} is not this machine's loopback */
    static void requireLoopback(String what, String host) {
        if (host == null || !LOOPBACK.contains(host.toLowerCase(Locale.ROOT))) {
            throw new ReplayCli.BadInput("a drill only targets this machine (127.0.0.1, localhost or ::1): " + what + " is '" + host + "'");
        }
    }

    /** Hosts of a Kafka bootstrap list such as {@code 127.0.0.1:9092,[::1]:9093}. */
    static List<String> bootstrapHosts(String bootstrap) {
        List<String> hosts = new ArrayList<>();
        for (String part : bootstrap.split(",")) {
            String p = part.trim().replaceFirst("^[A-Za-z_]+://", "");
            int colon = p.lastIndexOf(':');
            hosts.add(colon > 0 ? p.substring(0, colon) : p);
        }
        return hosts;
    }

    @Command(name = "kill-api", mixinStandardHelpOptions = true,
            description = "SIGKILL the api (both Streams apps) part-way through the load, as ./streamhouse kill api does.")
    static final class KillApi extends FaultDrill {
        KillApi() {
            super(Scenario.KILL_API);
        }
    }

    @Command(name = "wipe-api-state", mixinStandardHelpOptions = true,
            description = "Stop the api, delete its state directory (<data>/api-state), start it: it restores every store "
                    + "from its changelogs. Also measures the restore against Kafka's ConsumerPerformance on the same topics.")
    static final class WipeApiState extends FaultDrill {
        WipeApiState() {
            super(Scenario.WIPE_API_STATE);
        }
    }

    @Command(name = "restart-broker", mixinStandardHelpOptions = true,
            description = "Restart the Kafka broker (stop, start on the same port and log) part-way through the load.")
    static final class RestartBroker extends FaultDrill {
        RestartBroker() {
            super(Scenario.RESTART_BROKER);
        }
    }

    @Command(name = "kill-connect", mixinStandardHelpOptions = true,
            description = "SIGKILL the Kafka Connect worker (the Iceberg sink, CDC) part-way through the load; check Iceberg equals Kafka.")
    static final class KillConnect extends FaultDrill {
        KillConnect() {
            super(Scenario.KILL_CONNECT);
        }
    }

    @Command(name = "kill-cep", mixinStandardHelpOptions = true,
            description = "SIGKILL the Flink CEP job part-way through the load; the supervisor restarts it from its newest "
                    + "retained checkpoint, which the drill verifies.")
    static final class KillCep extends FaultDrill {
        KillCep() {
            super(Scenario.KILL_CEP);
        }
    }

    @Command(name = "kill-broker-leader", mixinStandardHelpOptions = true,
            description = "On a local cluster (up --cluster): SIGKILL the broker leading the most partitions of "
                    + "payments.transactions.decisions part-way through the load; times the leaders' move and its return to every ISR.")
    static final class KillBrokerLeader extends FaultDrill {
        KillBrokerLeader() {
            super(Scenario.KILL_BROKER_LEADER);
        }
    }

    @Command(name = "kill-taskmanager", mixinStandardHelpOptions = true,
            description = "On a local cluster (up --cluster): SIGKILL a Flink TaskManager running the CEP job part-way through "
                    + "the load; the job restores on the other one from its latest checkpoint, which the drill verifies.")
    static final class KillTaskManager extends FaultDrill {
        KillTaskManager() {
            super(Scenario.KILL_TASKMANAGER);
        }
    }

    @Command(name = "kill-connect-worker", mixinStandardHelpOptions = true,
            description = "On a local cluster (up --cluster): SIGKILL the Kafka Connect worker running the lake's task "
                    + "part-way through the load; the group starts it anew; checks Iceberg equals Kafka.")
    static final class KillConnectWorker extends FaultDrill {
        KillConnectWorker() {
            super(Scenario.KILL_CONNECT_WORKER);
        }
    }
}
