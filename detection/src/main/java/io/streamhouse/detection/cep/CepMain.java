package io.streamhouse.detection.cep;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Paths;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs the CEP job on Kafka. Two ways:
 * <ul>
 *   <li>{@code flink run streamhouse-flink-job.jar [options]} on a Flink cluster: the cluster's configuration applies,
 *       plus what this sets for correctness (RocksDB, exactly-once checkpoints, no Kryo);</li>
 *   <li>{@code --local}: a MiniCluster inside this JVM (what {@code ./streamhouse up} starts as a child process), its
 *       REST endpoint and every port on 127.0.0.1. It prints one line {@value #READY_PREFIX}{@code <job id> <rest url>}
 *       once the job is submitted, and with {@code --watch-stdin} stops when its standard input closes, like the
 *       broker: the launcher holds the other end, so the job never outlives it.</li>
 * </ul>
 * Options: {@link CepOptions}. Either way the job's OpenLineage run ({@link CepLineage}) starts once the job is
 * submitted and completes when it ends or is cancelled, or fails with the job (docs/lineage.md).
 */
public final class CepMain {
    public static final String READY_PREFIX = "STREAMHOUSE-CEP-READY ";
    public static final String JOB_NAME = "streamhouse-cep";
    /** Printed by a bounded {@code --local} run once its job finished (every source at its stop offsets, committed). */
    public static final String FINISHED_LINE = "STREAMHOUSE-CEP-FINISHED";

    public static void main(String[] args) throws Exception {
        CepOptions options;
        try {
            options = CepOptions.parse(args, System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("streamhouse-cep: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (options.local()) {
            runLocal(options, System.out, options.watchStdin() ? System.in : null);
            if (options.bounded()) {
                // Finished (a failure throws and exits non-zero): stop now, whatever non-daemon threads remain.
                System.out.println(FINISHED_LINE);
                System.out.flush();
                System.exit(0);
            }
        } else {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration(options));
            wire(env, options);
            try (LineageRun lineage = lineage(env, options)) {
                lineage.start();
                try {
                    env.execute(JOB_NAME);
                } catch (Exception e) {
                    lineage.fail("Flink job " + JOB_NAME + " failed: " + e, e);
                    throw e;
                }
            }
        }
    }

    /** Submits the job to a MiniCluster in this JVM and waits for it to end (or for stdin to close). */
    static void runLocal(CepOptions options, PrintStream out, InputStream stdin) throws Exception {
        if (options.stateBackend() == CepOptions.StateBackend.ROCKSDB) {
            RocksDbLibrary.requireFrocksdb(); // the job runs in this JVM: fail now rather than at every checkpoint
        }
        Configuration conf = configuration(options);
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        // Chosen here when 0, so the ready line can say where the REST API answers (the launcher polls the job's health).
        int restPort = options.restPort() != 0 ? options.restPort() : freeLoopbackPort();
        conf.set(RestOptions.BIND_PORT, Integer.toString(restPort));
        conf.set(JobManagerOptions.ADDRESS, "127.0.0.1");
        conf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        conf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        conf.set(TaskManagerOptions.HOST, "127.0.0.1");
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, options.parallelism());
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(64));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(32));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(32));
        if (options.checkpointsFollowRecords()) {
            RecordActivity.configure(conf);
        }
        if (options.restore().isEmpty() && options.resumeLatest() && options.checkpointDir().isPresent()) {
            latestRetainedCheckpoint(options.checkpointDir().get()).ifPresent(p -> {
                out.println(Instant.now() + " [streamhouse-cep] resuming from " + p);
                conf.set(StateRecoveryOptions.SAVEPOINT_PATH, p);
            });
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(options.parallelism(), conf);
        wire(env, options);
        if (options.checkpointsFollowRecords()) {
            // Only here, where ActivityCheckpoints runs beside the job: the periodic ones become the idle fallback.
            env.enableCheckpointing(options.idleCheckpointInterval().toMillis(), CheckpointingMode.EXACTLY_ONCE);
        }
        LineageRun lineage = lineage(env, options);
        JobClient client = env.executeAsync(JOB_NAME);
        lineage.start();
        if (options.checkpointsFollowRecords()) {
            RecordActivity activity = RecordActivity.current().orElseThrow(() -> new IllegalStateException(
                    "Flink created no " + RecordActivity.NAME + " metric reporter: checkpoints could not follow the records"));
            new ActivityCheckpoints(options.checkpointInterval(),
                    ActivityCheckpoints.rest(URI.create("http://127.0.0.1:" + restPort), client.getJobID().toString()))
                    .start(activity::total, out);
        }
        if (stdin != null) {
            watch(stdin, client, lineage);
        }
        out.println(READY_PREFIX + client.getJobID() + " http://127.0.0.1:" + restPort);
        out.flush();
        try {
            client.getJobExecutionResult().get();
        } catch (Exception e) {
            lineage.fail("Flink job " + JOB_NAME + " (" + client.getJobID() + ") failed: " + e, e);
            throw e;
        } finally {
            lineage.close();
        }
    }

    /** A port free on 127.0.0.1 now; should another process take it first, the MiniCluster fails to start and is started again. */
    private static int freeLoopbackPort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The job's lineage run, from Flink's lineage graph of the job wired on {@code env}. */
    static LineageRun lineage(StreamExecutionEnvironment env, CepOptions options) {
        return LineageRun.of(CepLineage.of(options.groupId(), env), options.bootstrap(), options.lineageOutputs(),
                Clock.systemUTC(), KafkaClientSettings.forPrincipal(KafkaPrincipal.CEP).security());
    }

    static void wire(StreamExecutionEnvironment env, CepOptions options) {
        env.setParallelism(options.parallelism());
        env.setBufferTimeout(options.bufferTimeoutMs());
        env.enableCheckpointing(options.checkpointInterval().toMillis(), CheckpointingMode.EXACTLY_ONCE);
        RegistryClientFactory registry = RegistryClientFactory.url(options.registry());
        CepJob.build(env, KafkaCepIo.sources(options.bootstrap(), options.groupId(), registry, options.stopAt()),
                KafkaCepIo.sinks(options.bootstrap(), options.groupId(), registry, options.delivery(), options.outputPrefix()),
                options.jobConfig(), registry);
    }

    /** What correctness needs, set whatever the cluster says; tunables only where unset. */
    static Configuration configuration(CepOptions options) {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(StateBackendOptions.STATE_BACKEND, options.stateBackend().flinkName());
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 2);
        options.checkpointDir().ifPresent(dir -> {
            conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, asUri(dir));
            conf.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, asUri(dir) + "/savepoints");
        });
        options.restore().ifPresent(p -> conf.set(StateRecoveryOptions.SAVEPOINT_PATH, p));
        if (options.allowNonRestoredState()) {
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        }
        if (options.bounded()) {
            // A replay fails loudly rather than retrying for ever: its caller reports the failure.
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        return conf;
    }

    private static String asUri(String dir) {
        return dir.contains("://") ? dir : Paths.get(dir).toAbsolutePath().toUri().toString();
    }

    /** The newest {@code chk-N} holding a {@code _metadata} file under the checkpoint directory, if any. */
    static Optional<String> latestRetainedCheckpoint(String dir) {
        return RetainedCheckpoints.newest(dir);
    }

    /**
     * Cancels the job (its last checkpoint is retained), completes its lineage run and halts when stdin reaches
     * end-of-file.
     */
    private static void watch(InputStream in, JobClient client, LineageRun lineage) {
        Thread watcher = new Thread(() -> {
            byte[] buffer = new byte[256];
            try {
                while (in.read(buffer) != -1) {
                    // only end-of-file matters
                }
            } catch (IOException ignored) {
                // treated as end-of-file
            }
            System.out.println(Instant.now() + " [streamhouse-cep] stdin closed: cancelling the job");
            // COMPLETE first: a cancel on stdin's end is how this job stops, not a failure of the run that the
            // cancelled job result would otherwise report from the main thread.
            lineage.complete();
            try {
                client.cancel().get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                System.out.println(Instant.now() + " [streamhouse-cep] cancel failed: " + e);
            }
            lineage.close();
            Runtime.getRuntime().halt(0);
        }, "streamhouse-cep-stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    private CepMain() {
    }
}
