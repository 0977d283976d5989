package io.streamhouse.launcher;

import io.streamhouse.security.kafka.KafkaClientSettings;

import io.streamhouse.supervisor.ChildSpec;
import io.streamhouse.supervisor.Readiness;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.SupervisedComponent;
import io.streamhouse.supervisor.Supervisor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The Flink CEP job in a child JVM: {@code CepMain --local} (a MiniCluster inside the child, every port on 127.0.0.1),
 * on the classpath {@code deploy/flink-job} recorded at build time — never on the launcher's, since Flink's RocksDB
 * and Kafka Streams' share a package. As a spec for the {@link Supervisor}: ready on its ready line in
 * {@code <logs>/cep.log}; it stops when this process closes its stdin, or dies. Its last checkpoint is retained
 * under {@code <data>/cep/checkpoints} and every start, a supervisor's restart included, resumes from it.
 */
final class CepProcess implements SupervisedComponent {
    static final String MAIN = "io.streamhouse.detection.cep.CepMain";
    static final String READY_PREFIX = "STREAMHOUSE-CEP-READY ";
    static final String COMPONENT = "cep";
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final Duration STOP_GRACE = Duration.ofSeconds(30);
    static final String LINEAGE_FILE = "lineage/openlineage-events.jsonl";

    private final SupervisedChild child;

    private CepProcess(SupervisedChild child) {
        this.child = child;
    }

    /** Starts the job under {@code supervisor} and returns once it is submitted. */
    static CepProcess start(Path home, String bootstrap, String registry, Path dataDir, Path logDir, Supervisor supervisor)
            throws IOException {
        Path module = home.resolve("deploy/flink-job/target");
        Path classpathFile = module.resolve("classes/streamhouse-flink-job.classpath");
        if (!Files.isRegularFile(classpathFile)) {
            throw new IOException(classpathFile + " is missing: build first (./mvnw -DskipTests package)");
        }
        String classpath = module.resolve("classes") + java.io.File.pathSeparator
                + Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
        Path tmp = Files.createDirectories(dataDir.resolve("tmp"));
        Path checkpoints = Files.createDirectories(dataDir.resolve("checkpoints"));
        List<String> command = List.of(ChildSpec.javaBin(), "-Xmx384m", "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + tmp.toAbsolutePath(), "-cp", classpath, MAIN,
                "--local", "--watch-stdin", "--bootstrap", bootstrap, "--registry", registry,
                "--checkpoint-dir", checkpoints.toAbsolutePath().toString(), "--parallelism", "2",
                // Its OpenLineage run events: to lineage.events (the default) and this file (docs/lineage.md).
                "--lineage-file", dataDir.resolve(LINEAGE_FILE).toAbsolutePath().toString());
        Files.createDirectories(logDir);
        Path log = logDir.resolve("cep.log");
        Files.deleteIfExists(log); // one log per up; restarts append to it
        // The job logs in to Kafka as the launcher says (SASL/SCRAM as user cep, or PLAINTEXT).
        ChildSpec spec = new ChildSpec(COMPONENT, command, KafkaClientSettings.childEnvironment(), Path.of("").toAbsolutePath(), log,
                new Readiness.LogLine(READY_PREFIX), START_TIMEOUT, STOP_GRACE);
        SupervisedChild child = supervisor.start(spec);
        child.releaseShutdownHook(); // the launcher stops its children in order
        return new CepProcess(child);
    }

    @Override
    public SupervisedChild supervised() {
        return child;
    }
}
