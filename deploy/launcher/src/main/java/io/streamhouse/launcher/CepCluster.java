package io.streamhouse.launcher;

import io.streamhouse.detection.cep.RetainedCheckpoints;
import io.streamhouse.flinkcluster.FlinkClusterConfig;
import io.streamhouse.flinkcluster.FlinkRestClient;
import io.streamhouse.flinkcluster.FlinkSessionCluster;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.SupervisedComponent;
import io.streamhouse.supervisor.Supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The CEP job on a Flink session cluster ({@code up --task-managers N}): a JobManager and N TaskManagers started from
 * Flink's own entry points as supervised children ({@link FlinkSessionCluster}: {@code flink-jobmanager},
 * {@code flink-taskmanager-1} …), and {@code deploy/flink-job}'s shaded jar submitted through the JobManager's REST
 * API at parallelism 2, as on a production cluster. Each TaskManager has 2 slots, so one TaskManager left after a
 * kill holds the whole job: Flink restarts it there from its latest checkpoint, and the supervisor brings the killed
 * one back. The JobManager runs without high availability: when it dies the supervisor restarts it empty, and this
 * class submits the job again from its newest retained checkpoint ({@link #keep}), so the job outlives a JobManager
 * as the MiniCluster's does a restart of its process.
 */
final class CepCluster implements SupervisedComponent {
    static final String MAIN = CepProcess.MAIN;
    static final int PARALLELISM = 2;
    static final int SLOTS_PER_TASK_MANAGER = 2;
    static final Duration SUBMIT_TIMEOUT = Duration.ofMinutes(4);
    static final Duration KEEP_INTERVAL = Duration.ofSeconds(5);

    private final FlinkSessionCluster cluster;
    private final Path jar;
    private final List<String> arguments;
    private final Consumer<String> announce;
    private final ScheduledExecutorService keeper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cep-cluster-keeper");
        t.setDaemon(true);
        return t;
    });
    private volatile String jobId;
    private volatile boolean closed;

    private CepCluster(FlinkSessionCluster cluster, Path jar, List<String> arguments, Consumer<String> announce) {
        this.cluster = cluster;
        this.jar = jar;
        this.arguments = List.copyOf(arguments);
        this.announce = announce;
    }

    /** Starts the cluster under {@code supervisor}, submits the job and returns once every subtask runs. */
    static CepCluster start(Path home, String bootstrap, String registry, Path dataDir, int taskManagers, Supervisor supervisor,
                            Consumer<String> announce) throws IOException {
        Path jar = shadedJar(home);
        Files.createDirectories(dataDir);
        FlinkClusterConfig config = FlinkClusterConfig.onFreePorts(dataDir, taskManagers, SLOTS_PER_TASK_MANAGER);
        FlinkSessionCluster cluster = FlinkSessionCluster.start(config, KafkaClientSettings.childEnvironment(), supervisor);
        List<String> arguments = List.of("--bootstrap", bootstrap, "--registry", registry,
                "--checkpoint-dir", config.checkpoints().toUri().toString(), "--parallelism", Integer.toString(PARALLELISM),
                // The job's main returns once it is submitted, so a run event of its own would say COMPLETE while the
                // job runs on: its lineage goes to the file only (docs/flink-cluster.md).
                "--lineage-topic", "false",
                "--lineage-file", dataDir.resolve(CepProcess.LINEAGE_FILE).toAbsolutePath().toString());
        CepCluster cep = new CepCluster(cluster, jar, arguments, announce);
        try {
            cep.submit();
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        cep.keeper.scheduleWithFixedDelay(cep::keep, KEEP_INTERVAL.toMillis(), KEEP_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return cep;
    }

    /** The job's shaded jar, as {@code ./mvnw package} builds it. */
    static Path shadedJar(Path home) throws IOException {
        Path target = home.resolve("deploy/flink-job/target");
        try (Stream<Path> files = Files.isDirectory(target) ? Files.list(target) : Stream.empty()) {
            return files.filter(p -> p.getFileName().toString().matches("streamhouse-flink-job-.*-shaded\\.jar")).findFirst()
                    .orElseThrow(() -> new IOException("no streamhouse-flink-job-*-shaded.jar in " + target
                            + ": build first (./mvnw -DskipTests package)"));
        }
    }

    private void submit() {
        Optional<String> from = RetainedCheckpoints.newest(cluster.config().checkpoints().toString());
        FlinkRestClient.Submission submission = new FlinkRestClient.Submission(MAIN, arguments, PARALLELISM, from, false);
        jobId = cluster.submit(jar, submission, SUBMIT_TIMEOUT);
        from.ifPresent(p -> announce.accept("  [cep] job " + jobId + " submitted to the session cluster, resumed from " + p));
    }

    /**
     * Every {@link #KEEP_INTERVAL}: a job the JobManager no longer knows (it was restarted, without high availability)
     * is submitted again from its newest retained checkpoint. Any other state is Flink's to handle (its restart
     * strategy) and health's to report ({@link FlinkJobHealth}).
     */
    private void keep() {
        if (closed || !cluster.jobManager().isAlive()) {
            return;
        }
        try {
            String state = cluster.rest().state(jobId);
            if (FlinkRestClient.MISSING.equals(state)) {
                announce.accept("  [cep] the JobManager knows no job " + jobId + " (it was restarted): submitting the job again");
                submit();
                announce.accept("  [cep] job " + jobId + " running");
            }
        } catch (RuntimeException e) {
            // The REST API is not up yet after a restart: the next round asks again.
        }
    }

    /** {@code <job id> <rest url>}, what {@link FlinkJobHealth} reads. */
    String endpoint() {
        return cluster.rest().endpointOf(jobId);
    }

    String jobId() {
        return jobId;
    }

    /** The JobManager, then each TaskManager. */
    List<String> components() {
        List<String> names = new ArrayList<>();
        cluster.components().forEach(c -> names.add(c.supervised().spec().name()));
        return names;
    }

    int taskManagers() {
        return cluster.config().taskManagers();
    }

    /** The JobManager: what stops and what health's state follows. */
    @Override
    public SupervisedChild supervised() {
        return cluster.jobManager();
    }

    @Override
    public void close() {
        closed = true;
        keeper.shutdownNow();
        cluster.close();
    }
}
