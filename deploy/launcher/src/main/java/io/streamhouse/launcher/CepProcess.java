package io.streamhouse.launcher;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Flink CEP job in a child JVM: {@code CepMain --local} (a MiniCluster inside the child, every port on 127.0.0.1),
 * on the classpath {@code deploy/flink-job} recorded at build time — never on the launcher's, since Flink's RocksDB
 * and Kafka Streams' share a package. The child stops when this process closes its stdin, or dies: its last
 * checkpoint is retained under {@code <data>/cep/checkpoints} and the next start resumes from it.
 */
final class CepProcess implements AutoCloseable {
    static final String MAIN = "io.streamhouse.detection.cep.CepMain";
    static final String READY_PREFIX = "STREAMHOUSE-CEP-READY ";

    private final Process process;
    private final OutputStream stdin;
    private final Path log;

    private CepProcess(Process process, Path log) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.log = log;
    }

    static CepProcess start(Path home, String bootstrap, String registry, Path dataDir, Path logDir) throws IOException {
        Path module = home.resolve("deploy/flink-job/target");
        Path classpathFile = module.resolve("classes/streamhouse-flink-job.classpath");
        if (!Files.isRegularFile(classpathFile)) {
            throw new IOException(classpathFile + " is missing: build first (./mvnw -DskipTests package)");
        }
        String classpath = module.resolve("classes") + java.io.File.pathSeparator
                + Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
        Path tmp = Files.createDirectories(dataDir.resolve("tmp"));
        Path checkpoints = Files.createDirectories(dataDir.resolve("checkpoints"));
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx384m", "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + tmp.toAbsolutePath(), "-cp", classpath, MAIN,
                "--local", "--watch-stdin", "--bootstrap", bootstrap, "--registry", registry,
                "--checkpoint-dir", checkpoints.toAbsolutePath().toString(), "--parallelism", "2"));
        Files.createDirectories(logDir);
        Path log = logDir.resolve("cep.log");
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        return new CepProcess(pb.start(), log);
    }

    /** Waits for the child's ready line (the job is submitted), or its death, or the deadline. */
    void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < until) {
            if (Files.readString(log, StandardCharsets.UTF_8).contains(READY_PREFIX)) {
                return;
            }
            if (!process.isAlive()) {
                throw new IOException("the CEP job exited with code " + process.exitValue() + " during start; see " + log);
            }
            // Bounded by the deadline; the child is a separate process, there is no event to wait on.
            process.waitFor(100, TimeUnit.MILLISECONDS);
        }
        throw new IOException("the CEP job was not ready within " + timeout.toSeconds() + " s; see " + log);
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    /** Closes the child's stdin (it cancels the job and exits), then terminates it if it has not exited within 30 s. */
    @Override
    public void close() {
        ChildStop.stop(process, stdin, java.time.Duration.ofSeconds(30));
    }
}
