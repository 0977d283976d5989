package io.streamhouse.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How many processes of each engine {@code up} starts: one of each by default, or a local cluster of the real engines
 * ({@code --cluster}: three Kafka brokers, a Flink session cluster of one JobManager and two TaskManagers, two
 * Kafka Connect workers, two api and two ingest instances), and whether this machine's memory holds them. Each
 * process's budget is its measured resident memory with the stack under load (docs/operations.md, Capacity
 * planning), rounded up; a plan whose sum exceeds the memory available is refused before anything starts.
 *
 * @param brokers         Kafka brokers (KRaft, each broker and controller): 1, or 3 (replication factor 3,
 *                        {@code min.insync.replicas} 2)
 * @param taskManagers    0: the CEP job in a MiniCluster inside one child JVM; otherwise a Flink session cluster of a
 *                        JobManager and this many TaskManagers, the job submitted through its REST API
 * @param connectWorkers  Kafka Connect workers in one group
 * @param apiInstances    api instances
 * @param ingestInstances ingest instances
 */
record ClusterPlan(int brokers, int taskManagers, int connectWorkers, int apiInstances, int ingestInstances) {

    static final int MAX_BROKERS = 3;
    static final int MAX_TASK_MANAGERS = 3;
    static final int MAX_CONNECT_WORKERS = 3;

    /** What {@code --cluster} asks for. */
    static final ClusterPlan CLUSTER = new ClusterPlan(3, 2, 2, 2, 2);

    /** Resident memory per process, in MiB: the measured figure rounded up (docs/operations.md). */
    static final int BROKER_MIB = 448;
    static final int JOB_MANAGER_MIB = 768;
    static final int TASK_MANAGER_MIB = 1024;
    /** The CEP job in a MiniCluster (the single-process default): 693 MB measured. */
    static final int CEP_MINICLUSTER_MIB = 768;
    static final int CONNECT_MIB = 512;
    static final int API_MIB = 896;
    static final int INGEST_MIB = 384;
    /** The launcher itself (schema registry, supervisor) and the lake's query service. */
    static final int LAUNCHER_MIB = 384;
    static final int SQL_MIB = 1024;
    /** The embedded PostgreSQL (shop, catalog). */
    static final int POSTGRES_MIB = 192;

    ClusterPlan {
        check("--brokers", brokers, 1, MAX_BROKERS);
        if (brokers == 2) {
            throw new IllegalArgumentException("--brokers takes 1 or 3, not 2: two KRaft controllers cannot lose one and"
                    + " keep a quorum, and replication factor 3 needs three brokers");
        }
        check("--task-managers", taskManagers, 0, MAX_TASK_MANAGERS);
        check("--connect-workers", connectWorkers, 1, MAX_CONNECT_WORKERS);
        check("--api-instances", apiInstances, 1, LaunchOptions.MAX_API_INSTANCES);
        check("--ingest-instances", ingestInstances, 1, LaunchOptions.MAX_INGEST_INSTANCES);
    }

    /** One of each: the default {@code up}. */
    static ClusterPlan single() {
        return new ClusterPlan(1, 0, 1, 1, 1);
    }

    boolean sessionCluster() {
        return taskManagers > 0;
    }

    /** The budget of every process this plan starts, in MiB, by what it is; parts left out ({@code --without}) count nothing. */
    Map<String, Integer> budget(boolean cep, boolean connect, boolean sql) {
        Map<String, Integer> b = new LinkedHashMap<>();
        b.put(count(brokers, "Kafka broker"), brokers * BROKER_MIB);
        if (cep && sessionCluster()) {
            b.put("Flink JobManager", JOB_MANAGER_MIB);
            b.put(count(taskManagers, "Flink TaskManager"), taskManagers * TASK_MANAGER_MIB);
        } else if (cep) {
            b.put("the CEP job (MiniCluster)", CEP_MINICLUSTER_MIB);
        }
        if (connect) {
            b.put(count(connectWorkers, "Kafka Connect worker"), connectWorkers * CONNECT_MIB);
        }
        b.put(count(apiInstances, "api instance"), apiInstances * API_MIB);
        b.put(count(ingestInstances, "ingest instance"), ingestInstances * INGEST_MIB);
        if (sql) {
            b.put("the lake's query service", SQL_MIB);
        }
        b.put("the launcher and schema registry", LAUNCHER_MIB);
        b.put("PostgreSQL", POSTGRES_MIB);
        return b;
    }

    /**
     * Why this machine cannot hold the plan, or empty when it can: the sum of the budgets against the memory
     * available now ({@code MemAvailable}). Unknown memory (no {@code /proc/meminfo}) refuses nothing.
     */
    Optional<String> refusal(boolean cep, boolean connect, boolean sql, OptionalLong availableMib) {
        if (availableMib.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Integer> budget = budget(cep, connect, sql);
        long needed = budget.values().stream().mapToLong(Integer::longValue).sum();
        if (needed <= availableMib.getAsLong()) {
            return Optional.empty();
        }
        List<String> parts = new ArrayList<>();
        budget.forEach((what, mib) -> parts.add(what + " " + mib + " MiB"));
        return Optional.of("Not starting: " + describe() + " needs about " + needed + " MiB of memory (" + String.join(", ", parts)
                + "), and this machine has " + availableMib.getAsLong() + " MiB available. Ask for fewer processes (e.g."
                + " --brokers 1, --task-managers 1, --connect-workers 1, --api-instances 1), leave parts out with --without,"
                + " or free memory.");
    }

    /** The processes asked for, in words. */
    String describe() {
        return brokers + " broker" + (brokers == 1 ? "" : "s") + ", "
                + (sessionCluster() ? "a Flink session cluster with " + count(taskManagers, "TaskManager") : "the CEP job in one JVM") + ", "
                + count(connectWorkers, "Connect worker") + ", " + count(apiInstances, "api instance") + " and "
                + count(ingestInstances, "ingest instance");
    }

    /** {@code MemAvailable} from {@code /proc/meminfo} in MiB, or empty where there is none. */
    static OptionalLong availableMemoryMib(Path meminfo) {
        try {
            for (String line : Files.readAllLines(meminfo)) {
                if (line.startsWith("MemAvailable:")) {
                    String[] f = line.trim().split("\\s+");
                    return OptionalLong.of(Long.parseLong(f[1]) / 1024);
                }
            }
            return OptionalLong.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    private static String count(int n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }

    private static void check(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", not " + value);
        }
    }
}
