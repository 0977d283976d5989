package io.streamhouse.detection.cep;

import io.streamhouse.lineage.LineageOutputs;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.common.TopicPartition;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link CepMain} is configured: {@code --name value} arguments, else the environment variable in brackets,
 * else the default. Unknown arguments are refused with the list of known ones.
 *
 * <pre>
 * --bootstrap            [STREAMHOUSE_KAFKA_BOOTSTRAP_SERVERS]   127.0.0.1:9092
 * --registry             [STREAMHOUSE_SCHEMA_REGISTRY_URL]       http://127.0.0.1:8085
 * --group-id             [STREAMHOUSE_CEP_GROUP_ID]              streamhouse-cep (also the transactional id prefix)
 * --parallelism          [STREAMHOUSE_CEP_PARALLELISM]           2
 * --checkpoint-dir       [STREAMHOUSE_CEP_CHECKPOINT_DIR]        none (a cluster's own configuration applies)
 * --checkpoint-interval  [STREAMHOUSE_CEP_CHECKPOINT_INTERVAL]   PT1S (alerts become visible when a checkpoint commits)
 * --idle-checkpoint-interval [STREAMHOUSE_CEP_IDLE_CHECKPOINT_INTERVAL] PT1M (local, unbounded: checkpoints follow the
 *                                                                records, one at most every checkpoint-interval once a
 *                                                                record moved, and this often otherwise; at or below
 *                                                                checkpoint-interval: every checkpoint-interval)
 * --delivery             [STREAMHOUSE_CEP_DELIVERY]              exactly-once | at-least-once
 * --max-out-of-orderness [STREAMHOUSE_CEP_MAX_OUT_OF_ORDERNESS]  PT30S
 * --idleness             [STREAMHOUSE_CEP_IDLENESS]              PT10S
 * --buffer-timeout-ms    [STREAMHOUSE_CEP_BUFFER_TIMEOUT_MS]     0 (flush network buffers at once: lowest latency)
 * --restore              [STREAMHOUSE_CEP_RESTORE]               a savepoint or retained checkpoint to start from
 * --allow-non-restored-state [STREAMHOUSE_CEP_ALLOW_NON_RESTORED_STATE] false: a restored snapshot's state that no
 *                                                                operator of this job takes is refused; true drops it
 *                                                                (a savepoint of an earlier job: the sources'
 *                                                                offsets carry over, its partial matches do not)
 * --local                [STREAMHOUSE_CEP_LOCAL]                 false: run in a MiniCluster inside this JVM
 * --rest-port            [STREAMHOUSE_CEP_REST_PORT]             0 (local only; bound to 127.0.0.1; 0 picks a free port)
 * --resume-latest        [STREAMHOUSE_CEP_RESUME_LATEST]         true (local only: restore the newest retained checkpoint in checkpoint-dir)
 * --watch-stdin          [STREAMHOUSE_CEP_WATCH_STDIN]           false (stop when standard input closes: a child of the launcher)
 * --stop-at              [STREAMHOUSE_CEP_STOP_AT]               none: unbounded. topic:partition=offset,… for every partition
 *                                                                of every input: a bounded run from the earliest offsets,
 *                                                                finished once each partition reached its offset (replay)
 * --output-prefix        [STREAMHOUSE_CEP_OUTPUT_PREFIX]         none: write alerts, dead letters and late events to
 *                                                                &lt;prefix&gt;&lt;live topic&gt; (a replay's shadow topics)
 * --engine               [STREAMHOUSE_CEP_ENGINE]                cep, the only engine: every pattern on Flink's CEP library,
 *                                                                late events reconciled (docs/cep-job.md); matcher,
 *                                                                the hand-written matcher, was removed and is refused
 * --state-backend        [STREAMHOUSE_CEP_STATE_BACKEND]         hashmap (state on the heap; what the CEP library needs
 *                                                                to keep up) | rocksdb (state on disk; the library runs at
 *                                                                about 1 % of its hashmap rate there: docs/benchmarks.md)
 * --lineage-topic        [STREAMHOUSE_CEP_LINEAGE_TOPIC]         true: write the job's OpenLineage run events to lineage.events
 * --lineage-file         [STREAMHOUSE_CEP_LINEAGE_FILE]          none: also append them to this file, one JSON event a line
 * </pre>
 */
public record CepOptions(String bootstrap, String registry, String groupId, int parallelism,
                         Optional<String> checkpointDir, Duration checkpointInterval, DeliveryGuarantee delivery,
                         Duration maxOutOfOrderness, Duration idleness, long bufferTimeoutMs, Optional<String> restore,
                         boolean local, int restPort, boolean resumeLatest, boolean watchStdin,
                         Map<TopicPartition, Long> stopAt, String outputPrefix,
                         boolean lineageTopic, Optional<String> lineageFile, boolean allowNonRestoredState,
                         StateBackend stateBackend, Duration idleCheckpointInterval) {

    /** Where the job keeps its keyed state (Flink's {@code state.backend.type}). */
    public enum StateBackend {
        /** On the JVM heap, snapshotted whole at each checkpoint (asynchronously). */
        HASHMAP("hashmap"),
        /** In embedded RocksDB (Flink's frocksdb), snapshotted incrementally. */
        ROCKSDB("rocksdb");

        private final String flinkName;

        StateBackend(String flinkName) {
            this.flinkName = flinkName;
        }

        /** The value of Flink's {@code state.backend.type}. */
        public String flinkName() {
            return flinkName;
        }
    }

    public CepOptions {
        Objects.requireNonNull(stateBackend, "stateBackend");
        stopAt = Map.copyOf(stopAt);
        Objects.requireNonNull(outputPrefix, "outputPrefix");
        Objects.requireNonNull(lineageFile, "lineageFile");
    }

    /** Where the job's run events go (docs/lineage.md). */
    public LineageOutputs lineageOutputs() {
        return new LineageOutputs(lineageTopic, lineageFile.map(Path::of));
    }

    /**
     * Whether {@link CepMain}'s local run makes checkpoints follow the records ({@link ActivityCheckpoints}): only for
     * a live job in a MiniCluster of this JVM (the record counters are read here), and only when idle checkpoints are
     * to be rarer. A bounded run checkpoints periodically: once its sources finish, its last checkpoint must come
     * without another record. A job wired otherwise ({@link CepMain#wire}) checkpoints every checkpoint interval.
     */
    public boolean checkpointsFollowRecords() {
        return local && !bounded() && idleCheckpointInterval.compareTo(checkpointInterval) > 0;
    }

    /** A bounded run (replay): every source stops at its {@link #stopAt} offsets and the job then finishes. */
    public boolean bounded() {
        return !stopAt.isEmpty();
    }

    private static final List<String[]> KNOWN = List.of(
            new String[]{"bootstrap", "STREAMHOUSE_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"},
            new String[]{"registry", "STREAMHOUSE_SCHEMA_REGISTRY_URL", "http://127.0.0.1:8085"},
            new String[]{"group-id", "STREAMHOUSE_CEP_GROUP_ID", "streamhouse-cep"},
            new String[]{"parallelism", "STREAMHOUSE_CEP_PARALLELISM", "2"},
            new String[]{"checkpoint-dir", "STREAMHOUSE_CEP_CHECKPOINT_DIR", ""},
            new String[]{"checkpoint-interval", "STREAMHOUSE_CEP_CHECKPOINT_INTERVAL", "PT1S"},
            new String[]{"idle-checkpoint-interval", "STREAMHOUSE_CEP_IDLE_CHECKPOINT_INTERVAL", "PT1M"},
            new String[]{"delivery", "STREAMHOUSE_CEP_DELIVERY", "exactly-once"},
            new String[]{"max-out-of-orderness", "STREAMHOUSE_CEP_MAX_OUT_OF_ORDERNESS", "PT30S"},
            new String[]{"idleness", "STREAMHOUSE_CEP_IDLENESS", "PT10S"},
            new String[]{"buffer-timeout-ms", "STREAMHOUSE_CEP_BUFFER_TIMEOUT_MS", "0"},
            new String[]{"restore", "STREAMHOUSE_CEP_RESTORE", ""},
            new String[]{"allow-non-restored-state", "STREAMHOUSE_CEP_ALLOW_NON_RESTORED_STATE", "false"},
            new String[]{"local", "STREAMHOUSE_CEP_LOCAL", "false"},
            new String[]{"rest-port", "STREAMHOUSE_CEP_REST_PORT", "0"},
            new String[]{"resume-latest", "STREAMHOUSE_CEP_RESUME_LATEST", "true"},
            new String[]{"watch-stdin", "STREAMHOUSE_CEP_WATCH_STDIN", "false"},
            new String[]{"stop-at", "STREAMHOUSE_CEP_STOP_AT", ""},
            new String[]{"output-prefix", "STREAMHOUSE_CEP_OUTPUT_PREFIX", ""},
            new String[]{"engine", "STREAMHOUSE_CEP_ENGINE", "cep"},
            new String[]{"state-backend", "STREAMHOUSE_CEP_STATE_BACKEND", "hashmap"},
            new String[]{"lineage-topic", "STREAMHOUSE_CEP_LINEAGE_TOPIC", "true"},
            new String[]{"lineage-file", "STREAMHOUSE_CEP_LINEAGE_FILE", ""});

    public static CepOptions parse(String[] args, Map<String, String> env) {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("expected --name value, got '" + a + "'");
            }
            String name = a.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                value = args[++i];
            } else {
                value = "true"; // a flag
            }
            String n = name;
            if (KNOWN.stream().noneMatch(k -> k[0].equals(n))) {
                throw new IllegalArgumentException("unknown option --" + name + "; known: "
                        + String.join(", ", KNOWN.stream().map(k -> "--" + k[0]).toList()));
            }
            given.put(name, value);
        }
        Map<String, String> v = new HashMap<>();
        for (String[] k : KNOWN) {
            v.put(k[0], given.getOrDefault(k[0], env.getOrDefault(k[1], k[2])));
        }
        requireCep(v.get("engine"));
        return new CepOptions(v.get("bootstrap"), v.get("registry"), v.get("group-id"),
                positive(v, "parallelism"), blankToEmpty(v.get("checkpoint-dir")), duration(v, "checkpoint-interval"),
                delivery(v.get("delivery")), duration(v, "max-out-of-orderness"), duration(v, "idleness"),
                Long.parseLong(v.get("buffer-timeout-ms")), blankToEmpty(v.get("restore")),
                Boolean.parseBoolean(v.get("local")), Integer.parseInt(v.get("rest-port")),
                Boolean.parseBoolean(v.get("resume-latest")), Boolean.parseBoolean(v.get("watch-stdin")),
                stopAt(v.get("stop-at")), v.get("output-prefix"), Boolean.parseBoolean(v.get("lineage-topic")),
                blankToEmpty(v.get("lineage-file")), Boolean.parseBoolean(v.get("allow-non-restored-state")),
                stateBackend(v.get("state-backend")), duration(v, "idle-checkpoint-interval"));
    }

    /**
     * The live job's event time, or a bounded run's: every partition of a bounded run has its records up to its stop
     * offset, so none is ever taken for quiet (a partition waiting its turn holds the watermark back; a finished one
     * stops counting), and its sources are not aligned (the Kafka source's reader 5.0.0 fails pausing a partition it has
     * just finished: FLINK-39728).
     */
    public CepJobConfig jobConfig() {
        CepJobConfig live = new CepJobConfig(maxOutOfOrderness, idleness, false);
        return bounded() ? live.forBoundedRun() : live;
    }

    /** {@code topic:partition=offset,…} (topic names hold no ',' and the partition follows the last ':'). */
    static Map<TopicPartition, Long> stopAt(String raw) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        if (raw == null || raw.isBlank()) {
            return offsets;
        }
        for (String part : raw.split(",")) {
            int colon = part.lastIndexOf(':'), eq = part.lastIndexOf('=');
            try {
                if (colon < 1 || eq < colon) {
                    throw new NumberFormatException();
                }
                long offset = Long.parseLong(part.substring(eq + 1));
                int partition = Integer.parseInt(part.substring(colon + 1, eq));
                if (offset < 0 || partition < 0) {
                    throw new NumberFormatException();
                }
                offsets.put(new TopicPartition(part.substring(0, colon), partition), offset);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--stop-at takes topic:partition=offset,…, not '" + part + "'");
            }
        }
        return offsets;
    }

    private static Optional<String> blankToEmpty(String s) {
        return s == null || s.isBlank() ? Optional.empty() : Optional.of(s);
    }

    private static int positive(Map<String, String> v, String name) {
        int n = Integer.parseInt(v.get(name));
        if (n < 1) {
            throw new IllegalArgumentException("--" + name + " must be at least 1, was " + n);
        }
        return n;
    }

    private static Duration duration(Map<String, String> v, String name) {
        try {
            return Duration.parse(v.get(name));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--" + name + " must be an ISO-8601 duration like PT30S, was '" + v.get(name) + "'");
        }
    }

    private static StateBackend stateBackend(String raw) {
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "hashmap" -> StateBackend.HASHMAP;
            case "rocksdb" -> StateBackend.ROCKSDB;
            default -> throw new IllegalArgumentException("--state-backend must be hashmap or rocksdb, was '" + raw + "'");
        };
    }

    /** {@code cep} is the only engine; the option stays so that a deployment that names it still starts. */
    private static void requireCep(String raw) {
        switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "cep" -> {
            }
            case "matcher" -> throw new IllegalArgumentException("--engine matcher was removed: every pattern runs on "
                    + "Flink's CEP library (--engine cep, the default). A savepoint of the matcher's job restores with "
                    + "--allow-non-restored-state: the sources' offsets carry over, its partial matches do not "
                    + "(docs/cep-job.md, \"Running the CEP job\")");
            default -> throw new IllegalArgumentException("--engine must be cep, was '" + raw + "'");
        }
    }

    private static DeliveryGuarantee delivery(String raw) {
        return switch (raw.toLowerCase(Locale.ROOT)) {
            case "exactly-once" -> DeliveryGuarantee.EXACTLY_ONCE;
            case "at-least-once" -> DeliveryGuarantee.AT_LEAST_ONCE;
            default -> throw new IllegalArgumentException("--delivery must be exactly-once or at-least-once, was '" + raw + "'");
        };
    }
}
