package io.streamhouse.replay;

import io.streamhouse.security.kafka.KafkaClientSettings;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The CEP job rerun into a shadow: the job's own {@code CepMain --local} (the same pattern code live runs) in a child
 * JVM on the classpath {@code deploy/flink-job} records at build time — not in this JVM, whose Kafka Streams brings a
 * {@code rocksdbjni} that defines the same {@code org.rocksdb} classes as Flink's {@code frocksdbjni}. The child reads
 * every input from its earliest offset and stops at the cut ({@code --stop-at}: a bounded Kafka source per topic, so
 * the job finishes by itself and emits its final watermark), under its own consumer group and transactional ids, and
 * writes alerts, dead letters and late events to {@code streamhouse-cep-shadow-<id>.<live topic>}, exactly once.
 */
public final class CepShadow {
    /** The live job's consumer group (CepOptions' default group id). */
    static final String LIVE_GROUP = "streamhouse-cep";
    static final String CLASSPATH_FILE = "deploy/flink-job/target/classes/streamhouse-flink-job.classpath";
    private static final String MAIN = "io.streamhouse.detection.cep.CepMain";
    private static final String FINISHED = "STREAMHOUSE-CEP-FINISHED";
    static final String SHADOW_IDLENESS = "PT1H";

    /** What the job reads: its event-time inputs and the rules (thresholds), all bounded by the cut. */
    static List<String> inputTopics() {
        List<String> topics = new ArrayList<>(Topics.eventTimeInputs().stream().map(Topic::name).toList());
        topics.add(Topics.RULES.name());
        return topics;
    }

    static List<Topic<String, Alert>> alertTopics() {
        return List.of(Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS, Topics.MAINTENANCE_ALERTS);
    }

    /** The job's consumer group and transactional id prefix for a shadow; also the prefix of its topics. */
    public static String groupId(String shadowId) {
        return "streamhouse-cep-shadow-" + shadowId;
    }

    static String topicPrefix(String groupId) {
        return groupId + ".";
    }

    /** Every topic the job writes: the alert topics, the inputs' dead-letter topics and the event inputs' late topics. */
    static List<Topic<?, ?>> liveOutputs() {
        List<Topic<?, ?>> all = new ArrayList<>(alertTopics());
        Topics.eventTimeInputs().forEach(t -> {
            all.add(Topics.deadLetterOf(t));
            all.add(Topics.lateOf(t));
        });
        all.add(Topics.deadLetterOf(Topics.RULES));
        return all;
    }

    record Result(Duration duration, Path log) {
    }

    /**
     * Runs the job from the earliest offsets to {@code cut} into the shadow {@code groupId}, and returns once it finished.
     *
     * @throws Endpoints.EnvironmentException if the job is not built, fails, or does not finish within {@code timeout}
     */
    static Result run(Path home, String groupId, Cut cut, Admin admin, String bootstrap, String registry, Path workDir,
                      Duration timeout) throws IOException, InterruptedException {
        Path classpathFile = home.resolve(CLASSPATH_FILE);
        if (!Files.isRegularFile(classpathFile)) {
            throw new Endpoints.EnvironmentException(classpathFile + " is missing: build the CEP job first "
                    + "(./mvnw -q -B -DskipTests -pl deploy/flink-job -am package)");
        }
        createOutputs(admin, topicPrefix(groupId));
        String classpath = home.resolve("deploy/flink-job/target/classes") + java.io.File.pathSeparator
                + Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
        Path tmp = Files.createDirectories(workDir.resolve(groupId));
        Path log = workDir.resolve(groupId + ".log");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-Djava.io.tmpdir=" + tmp.toAbsolutePath(), "-cp", classpath, MAIN,
                "--local", "--watch-stdin", "--bootstrap", bootstrap, "--registry", registry, "--group-id", groupId,
                "--stop-at", cut.encode(), "--output-prefix", topicPrefix(groupId), "--parallelism", "2",
                "--resume-latest", "false",
                // Checkpoints to files: without a directory Flink keeps them in the JobManager's memory, 5 MB at most,
                // and a kill-cep drill at 1,000 events/s grew the overheating reconciler's state past it, failing the run.
                "--checkpoint-dir", tmp.resolve("checkpoints").toAbsolutePath().toString(),
                // Every partition has records up to the cut and a finished one holds nothing back, so the watermark
                // is the plain minimum over the partitions; a partition the reader merely polls later never counts
                // as idle (live's 10 s would make its events late, depending on timing).
                "--idleness", SHADOW_IDLENESS);
        Instant began = Instant.now();
        ProcessBuilder builder = new ProcessBuilder(command);
        // The shadow job logs in as the live job does (user cep), with the settings this process runs with.
        builder.environment().putAll(KafkaClientSettings.childEnvironment());
        Process child = builder.redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE).start();
        try {
            if (!child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new Endpoints.EnvironmentException("the CEP shadow " + groupId + " did not finish within "
                        + timeout.toSeconds() + " s (--timeout); its log: " + log);
            }
        } finally {
            if (child.isAlive()) {
                child.getOutputStream().close(); // --watch-stdin: the child cancels its job and exits
                if (!child.waitFor(20, TimeUnit.SECONDS)) {
                    child.destroy();
                }
                if (!child.waitFor(20, TimeUnit.SECONDS)) {
                    child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
        Duration took = Duration.between(began, Instant.now());
        String output = Files.readString(log, StandardCharsets.UTF_8);
        if (child.exitValue() != 0 || !output.contains(FINISHED)) {
            throw new Endpoints.EnvironmentException("the CEP shadow " + groupId + " failed (exit " + child.exitValue()
                    + "): " + lastLines(output, 15) + "\n(whole log: " + log + ")");
        }
        return new Result(took, log);
    }

    private static String lastLines(String text, int n) {
        String[] lines = text.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - n), lines.length));
    }

    /** Copies of the job's outputs named {@code <prefix><live topic>}, created as the platform creates the live ones. */
    static void createOutputs(Admin admin, String prefix) {
        List<NewTopic> topics = liveOutputs().stream()
                .map((Topic<?, ?> t) -> new NewTopic(prefix + t.name(), t.partitions(), (short) -1).configs(t.configs()))
                .toList();
        try {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot create the CEP shadow's topics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The repository root: {@code streamhouse.home} (set by ./streamhouse), else the working directory or its parent. */
    public static Path home() {
        String property = System.getProperty("streamhouse.home");
        if (property != null) {
            return Path.of(property).toAbsolutePath().normalize();
        }
        Path here = Path.of("").toAbsolutePath();
        for (Path p : java.util.Arrays.asList(here, here.getParent() == null ? here : here.getParent())) {
            if (Files.isDirectory(p.resolve("deploy/flink-job"))) {
                return p;
            }
        }
        return here;
    }

    private CepShadow() {
    }
}
