package io.streamhouse.flinkcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration of a session cluster on this machine, what a distribution's {@code conf/config.yaml} would hold,
 * one file per process ({@code <dir>/jobmanager/conf}, {@code <dir>/taskmanager-<n>/conf}), and the JVM options
 * Flink's start scripts would compute. Every address is 127.0.0.1; the ports are fixed before the first start, so a
 * restarted JobManager answers on the same REST URL and restarted TaskManagers find it again.
 *
 * <p>Memory is given whole rather than derived: the TaskManager refuses to start unless each of its memory components
 * is set (its start script normally computes them), and the JVM limits below are their sums. The figures fit two
 * TaskManagers and a JobManager in about 2.8 GB of process memory: {@value #TM_PROCESS_MB} MB per TaskManager,
 * {@value #JM_PROCESS_MB} MB for the JobManager.
 *
 * @param dir                  the cluster's directory: configuration, checkpoints, uploaded jars, temp files
 * @param restPort             the JobManager's REST port (jar upload, job control, the web UI)
 * @param rpcPort              the JobManager's RPC port, which the TaskManagers dial
 * @param taskManagers         how many TaskManagers
 * @param slotsPerTaskManager  task slots of each (2 lets one TaskManager alone hold a job of parallelism 2)
 */
public record FlinkClusterConfig(Path dir, int restPort, int rpcPort, int taskManagers, int slotsPerTaskManager) {

    public static final String HOST = "127.0.0.1";
    static final int TM_PROCESS_MB = 1024;
    static final int TM_FRAMEWORK_HEAP_MB = 64;
    static final int TM_TASK_HEAP_MB = 256;
    static final int TM_FRAMEWORK_OFF_HEAP_MB = 64;
    static final int TM_TASK_OFF_HEAP_MB = 0;
    static final int TM_NETWORK_MB = 64;
    static final int TM_MANAGED_MB = 256;
    static final int TM_METASPACE_MB = 192;
    static final int TM_OVERHEAD_MB = 128;
    static final int JM_PROCESS_MB = 768;
    static final int JM_HEAP_MB = 384;
    static final int JM_OFF_HEAP_MB = 96;
    static final int JM_METASPACE_MB = 160;
    static final int JM_OVERHEAD_MB = 128;

    public FlinkClusterConfig {
        dir = dir.toAbsolutePath();
        if (taskManagers < 1 || slotsPerTaskManager < 1) {
            throw new IllegalArgumentException("a cluster needs at least one TaskManager with one slot, was "
                    + taskManagers + " x " + slotsPerTaskManager);
        }
        if (restPort < 1 || rpcPort < 1 || restPort == rpcPort) {
            throw new IllegalArgumentException("restPort and rpcPort must be two ports, were " + restPort + " and " + rpcPort);
        }
        int sum = TM_FRAMEWORK_HEAP_MB + TM_TASK_HEAP_MB + TM_FRAMEWORK_OFF_HEAP_MB + TM_TASK_OFF_HEAP_MB + TM_NETWORK_MB
                + TM_MANAGED_MB + TM_METASPACE_MB + TM_OVERHEAD_MB;
        if (sum != TM_PROCESS_MB || JM_HEAP_MB + JM_OFF_HEAP_MB + JM_METASPACE_MB + JM_OVERHEAD_MB != JM_PROCESS_MB) {
            throw new IllegalStateException("memory components do not add up to the process sizes");
        }
    }

    /** On free ports of 127.0.0.1 (free now: should another process take one first, the start fails and says so). */
    public static FlinkClusterConfig onFreePorts(Path dir, int taskManagers, int slotsPerTaskManager) {
        int rest = freePort();
        int rpc = freePort();
        while (rpc == rest) {
            rpc = freePort();
        }
        return new FlinkClusterConfig(dir, rest, rpc, taskManagers, slotsPerTaskManager);
    }

    public URI restUrl() {
        return URI.create("http://" + HOST + ":" + restPort);
    }

    /** The process memory the cluster asks of the machine: what a launcher checks before starting it. */
    public long processMemoryMb() {
        return JM_PROCESS_MB + (long) taskManagers * TM_PROCESS_MB;
    }

    public int totalSlots() {
        return taskManagers * slotsPerTaskManager;
    }

    /** Retained checkpoints of every job, one directory per job id. */
    public Path checkpoints() {
        return dir.resolve("checkpoints");
    }

    public Path savepoints() {
        return dir.resolve("savepoints");
    }

    /** The resource id of TaskManager {@code n} (1-based), as the JobManager lists it. */
    public static String taskManagerId(int n) {
        return "taskmanager-" + n;
    }

    /** What every process reads: addresses, ports, memory, checkpoints, failure detection. */
    Map<String, String> common() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", HOST);
        c.put("jobmanager.rpc.port", Integer.toString(rpcPort));
        c.put("jobmanager.bind-host", HOST);
        c.put("rest.address", HOST);
        c.put("rest.bind-address", HOST);
        c.put("rest.port", Integer.toString(restPort));
        c.put("taskmanager.host", HOST);
        c.put("taskmanager.bind-host", HOST);
        c.put("taskmanager.numberOfTaskSlots", Integer.toString(slotsPerTaskManager));
        // One subtask per TaskManager while there is room: a job of parallelism 2 lands on both (placement shows).
        c.put("taskmanager.load-balance.mode", "slots");
        c.put("jobmanager.memory.process.size", JM_PROCESS_MB + "m");
        c.put("jobmanager.memory.heap.size", JM_HEAP_MB + "m");
        c.put("jobmanager.memory.off-heap.size", JM_OFF_HEAP_MB + "m");
        c.put("jobmanager.memory.jvm-metaspace.size", JM_METASPACE_MB + "m");
        c.put("jobmanager.memory.jvm-overhead.min", JM_OVERHEAD_MB + "m");
        c.put("jobmanager.memory.jvm-overhead.max", JM_OVERHEAD_MB + "m");
        c.put("taskmanager.memory.process.size", TM_PROCESS_MB + "m");
        c.put("taskmanager.memory.framework.heap.size", TM_FRAMEWORK_HEAP_MB + "m");
        c.put("taskmanager.memory.task.heap.size", TM_TASK_HEAP_MB + "m");
        c.put("taskmanager.memory.framework.off-heap.size", TM_FRAMEWORK_OFF_HEAP_MB + "m");
        c.put("taskmanager.memory.task.off-heap.size", TM_TASK_OFF_HEAP_MB + "m");
        c.put("taskmanager.memory.network.min", TM_NETWORK_MB + "m");
        c.put("taskmanager.memory.network.max", TM_NETWORK_MB + "m");
        c.put("taskmanager.memory.managed.size", TM_MANAGED_MB + "m");
        c.put("taskmanager.memory.jvm-metaspace.size", TM_METASPACE_MB + "m");
        c.put("taskmanager.memory.jvm-overhead.min", TM_OVERHEAD_MB + "m");
        c.put("taskmanager.memory.jvm-overhead.max", TM_OVERHEAD_MB + "m");
        c.put("taskmanager.cpu.cores", slotsPerTaskManager + ".0");
        // Checkpoints and savepoints on the local disk; RocksDB is in the cluster, the job picks its backend.
        c.put("execution.checkpointing.dir", checkpoints().toUri().toString());
        c.put("execution.checkpointing.savepoint-dir", savepoints().toUri().toString());
        c.put("state.backend.type", "rocksdb");
        c.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        // A killed TaskManager is noticed when its heartbeat RPCs fail (connection refused), not after the default 50 s
        // timeout; the timeout stays generous for a loaded 2-core machine.
        c.put("heartbeat.interval", "2000");
        c.put("heartbeat.timeout", "20000");
        c.put("heartbeat.rpc-failure-threshold", "2");
        c.put("restart-strategy.type", "exponential-delay");
        c.put("restart-strategy.exponential-delay.initial-backoff", "1 s");
        c.put("restart-strategy.exponential-delay.max-backoff", "10 s");
        c.put("web.upload.dir", dir.resolve("jobmanager/uploads").toString());
        c.put("web.submit.enable", "true");
        c.put("web.cancel.enable", "true");
        return c;
    }

    /** The JobManager's {@code config.yaml} entries. */
    public Map<String, String> jobManager() {
        Map<String, String> c = common();
        c.put("io.tmp.dirs", dir.resolve("jobmanager/tmp").toString());
        c.put("web.log.path", dir.resolve("jobmanager/" + FlinkSessionCluster.JOBMANAGER + ".log").toString());
        return c;
    }

    /** TaskManager {@code n}'s (1-based) {@code config.yaml} entries. */
    public Map<String, String> taskManager(int n) {
        if (n < 1 || n > taskManagers) {
            throw new IllegalArgumentException("no TaskManager " + n + " in a cluster of " + taskManagers);
        }
        Map<String, String> c = common();
        c.put("taskmanager.resource-id", taskManagerId(n));
        c.put("io.tmp.dirs", dir.resolve(taskManagerId(n) + "/tmp").toString());
        c.put("taskmanager.rpc.port", "0");
        c.put("taskmanager.data.port", "0");
        return c;
    }

    /**
     * What a distribution's {@code config.yaml} sets as {@code env.java.default-opts.all}: Flink reflects into the JDK
     * (the DataStream translators that a jar's {@code main} loads in the JobManager open {@code java.util}, Kryo
     * the collections), which Java 17 refuses without these.
     */
    static final List<String> MODULE_OPENS = List.of(
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    /** The JVM options Flink's start script would give the JobManager (heap, direct memory, metaspace). */
    public static List<String> jobManagerJvm() {
        List<String> jvm = new ArrayList<>(List.of("-Xms" + JM_HEAP_MB + "m", "-Xmx" + JM_HEAP_MB + "m",
                "-XX:MaxDirectMemorySize=" + JM_OFF_HEAP_MB + "m", "-XX:MaxMetaspaceSize=" + JM_METASPACE_MB + "m"));
        jvm.addAll(MODULE_OPENS);
        return List.copyOf(jvm);
    }

    /** The JVM options of a TaskManager: the heap is framework + task heap; direct memory adds the network buffers. */
    public static List<String> taskManagerJvm() {
        int heap = TM_FRAMEWORK_HEAP_MB + TM_TASK_HEAP_MB;
        int direct = TM_FRAMEWORK_OFF_HEAP_MB + TM_TASK_OFF_HEAP_MB + TM_NETWORK_MB;
        List<String> jvm = new ArrayList<>(List.of("-Xms" + heap + "m", "-Xmx" + heap + "m",
                "-XX:MaxDirectMemorySize=" + direct + "m", "-XX:MaxMetaspaceSize=" + TM_METASPACE_MB + "m"));
        jvm.addAll(MODULE_OPENS);
        return List.copyOf(jvm);
    }

    /** Flat {@code key: value} lines, values quoted: valid YAML that Flink 2's {@code config.yaml} reader takes. */
    static String yaml(Map<String, String> entries) {
        StringBuilder s = new StringBuilder("# written by " + FlinkClusterConfig.class.getName() + "\n");
        entries.forEach((k, v) -> s.append(k).append(": \"").append(v.replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\"\n"));
        return s.toString();
    }

    /** Writes {@code <dir>/<process>/conf/config.yaml} and returns the conf directory. */
    static Path write(Path processDir, Map<String, String> entries) {
        try {
            Path conf = Files.createDirectories(processDir.resolve("conf"));
            Files.writeString(conf.resolve("config.yaml"), yaml(entries), StandardCharsets.UTF_8);
            for (String key : List.of("io.tmp.dirs", "web.upload.dir")) {
                if (entries.containsKey(key)) {
                    Files.createDirectories(Path.of(entries.get(key)));
                }
            }
            return conf;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the Flink configuration under " + processDir, e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
