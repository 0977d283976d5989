package io.streamhouse.flinkcluster;

import io.streamhouse.supervisor.ChildSpec;
import io.streamhouse.supervisor.Readiness;
import io.streamhouse.supervisor.RecordedClasspath;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.SupervisedComponent;
import io.streamhouse.supervisor.Supervisor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A Flink session cluster of child JVMs on this machine, seen from the parent: one JobManager
 * ({@value #JOBMANAGER}) and TaskManagers ({@code taskmanager-1}, ...), each a {@link ChildSpec} under the given
 * {@link Supervisor}, so that a killed TaskManager is restarted like any component (with the same resource id and
 * configuration). The children's classpath is Flink's runtime as recorded at build time, never a job's classes: jobs
 * arrive through {@link #rest()} as jars.
 *
 * <p>Guarantees: {@link #start} returns once the JobManager's REST API answers and every TaskManager is registered
 * with it (all slots offered), or throws with the failing child's log tail (what was started is stopped). {@link #close}
 * stops the TaskManagers, then the JobManager; a running job is left as the cluster leaves it (its latest checkpoint
 * retained on disk). No orphan: every child exits when its stdin reaches end-of-file.
 */
public final class FlinkSessionCluster implements AutoCloseable {
    public static final String CLASSPATH_RESOURCE = "streamhouse-flink-cluster.classpath";
    public static final String JOBMANAGER = "flink-jobmanager";
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    static final Duration STOP_GRACE = Duration.ofSeconds(20);

    private final FlinkClusterConfig config;
    private final SupervisedChild jobManager;
    private final List<SupervisedChild> taskManagers;
    private final FlinkRestClient rest;

    private FlinkSessionCluster(FlinkClusterConfig config, SupervisedChild jobManager, List<SupervisedChild> taskManagers) {
        this.config = config;
        this.jobManager = jobManager;
        this.taskManagers = Collections.unmodifiableList(taskManagers);
        this.rest = new FlinkRestClient(config.restUrl());
    }

    /**
     * Starts the JobManager, then the TaskManagers one after another (two JVMs starting at once on 2 cores take as long
     * as one after the other), under {@code supervisor}.
     *
     * @param environment added to each child's environment (e.g. the Kafka login the job's clients read)
     */
    public static FlinkSessionCluster start(FlinkClusterConfig config, Map<String, String> environment, Supervisor supervisor) {
        String classpath = RecordedClasspath.of(FlinkSessionCluster.class, CLASSPATH_RESOURCE, "deploy/flink-cluster");
        Path jmDir = config.dir().resolve("jobmanager");
        Path jmConf = FlinkClusterConfig.write(jmDir, config.jobManager());
        List<SupervisedChild> started = new ArrayList<>();
        try {
            SupervisedChild jm = supervisor.start(spec(JOBMANAGER, FlinkClusterConfig.jobManagerJvm(), classpath, jmConf, config,
                    null, environment, jmDir, FlinkClusterMain.JOBMANAGER_READY));
            started.add(jm);
            List<SupervisedChild> tms = new ArrayList<>();
            for (int n = 1; n <= config.taskManagers(); n++) {
                String id = FlinkClusterConfig.taskManagerId(n);
                Path dir = config.dir().resolve(id);
                Path conf = FlinkClusterConfig.write(dir, config.taskManager(n));
                SupervisedChild tm = supervisor.start(spec("flink-" + id, FlinkClusterConfig.taskManagerJvm(), classpath, conf,
                        config, id, environment, dir, FlinkClusterMain.TASKMANAGER_READY));
                started.add(tm);
                tms.add(tm);
            }
            started.forEach(SupervisedChild::releaseShutdownHook); // close() stops them in order
            return new FlinkSessionCluster(config, jm, tms);
        } catch (RuntimeException e) {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).close();
            }
            throw e;
        }
    }

    private static ChildSpec spec(String name, List<String> jvm, String classpath, Path conf, FlinkClusterConfig config,
                                  String resourceId, Map<String, String> environment, Path dir, String readyPrefix) {
        List<String> command = new ArrayList<>();
        command.add(ChildSpec.javaBin());
        command.addAll(jvm);
        command.add("-XX:+UseSerialGC");
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.add("-XX:-UsePerfData");
        command.add("-Djava.io.tmpdir=" + dir.resolve("tmp"));
        // Flink at WARN, but the lines that tell where a job runs and how it recovers.
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.executiongraph.ExecutionGraph=info");
        command.add("-Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.checkpoint.CheckpointCoordinator=info");
        command.add("-Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.resourcemanager=info");
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        command.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSS");
        command.add("-cp");
        command.add(classpath);
        command.add(FlinkClusterMain.class.getName());
        command.add("--role");
        command.add(resourceId == null ? "jobmanager" : "taskmanager");
        command.add("--config-dir");
        command.add(conf.toString());
        command.add("--rest-url");
        command.add(config.restUrl().toString());
        if (resourceId != null) {
            command.add("--resource-id");
            command.add(resourceId);
        }
        return new ChildSpec(name, command, environment, dir, dir.resolve(name + ".log"), new Readiness.LogLine(readyPrefix),
                START_TIMEOUT, STOP_GRACE);
    }

    public FlinkClusterConfig config() {
        return config;
    }

    /** The JobManager's REST API: submit jars, read and control jobs. */
    public FlinkRestClient rest() {
        return rest;
    }

    public SupervisedChild jobManager() {
        return jobManager;
    }

    /** TaskManager {@code n} (1-based). */
    public SupervisedChild taskManager(int n) {
        return taskManagers.get(n - 1);
    }

    /** Every child, JobManager first, as components for a status listing. */
    public List<SupervisedComponent> components() {
        List<SupervisedComponent> all = new ArrayList<>();
        all.add(() -> jobManager);
        taskManagers.forEach(tm -> all.add(() -> tm));
        return all;
    }

    /**
     * Uploads {@code jar}, runs it, and waits until every subtask of the job runs; returns the job id. A job that fails
     * or is not running within {@code timeout} throws with its state.
     */
    public String submit(Path jar, FlinkRestClient.Submission submission, Duration timeout) {
        String jobId = rest.run(rest.upload(jar), submission);
        awaitRunning(jobId, timeout);
        return jobId;
    }

    /** Waits until every subtask of the job runs. */
    public void awaitRunning(String jobId, Duration timeout) {
        await(() -> {
            String state = rest.state(jobId);
            if (state.equals("FAILED") || state.equals("CANCELED")) {
                throw new IllegalStateException("job " + jobId + " is " + state + ": see " + jobManager.logFile());
            }
            return rest.allTasksRunning(jobId);
        }, timeout, () -> "job " + jobId + " not running within " + timeout.toSeconds() + " s (state "
                + rest.state(jobId) + ")");
    }

    private static void await(BooleanSupplier condition, Duration timeout, java.util.function.Supplier<String> why) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(why.get());
            }
            try {
                Thread.sleep(200); // poll interval, bounded by the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /** Stops the TaskManagers (last first), then the JobManager. Idempotent. */
    @Override
    public void close() {
        for (int i = taskManagers.size() - 1; i >= 0; i--) {
            taskManagers.get(i).close();
        }
        jobManager.close();
    }
}
