package io.streamhouse.lakequery;

import io.streamhouse.security.kafka.KafkaClientSettings;

import io.streamhouse.supervisor.RecordedClasspath;
import io.streamhouse.supervisor.LocalFiles;
import io.streamhouse.supervisor.LocalProcesses;
import io.streamhouse.supervisor.ShutdownHook;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The query service's JVM ({@link LakeQueryMain}) seen from the parent. JDK-only on purpose, like
 * {@code ConnectProcess}: applications depend on this module with an exclusion of {@code *:*}, and the child's
 * classpath comes from the resource {@value #CLASSPATH_RESOURCE} written at build time.
 *
 * <p>{@link #start} returns as soon as the child is launched, with its URL already fixed (the port is chosen before),
 * so a launcher can hand the URL to the api and go on; {@link #awaitReady} waits for the engine. No orphan: the child
 * exits when its stdin reaches end-of-file, which the kernel causes if this JVM dies. {@link #close()} is idempotent:
 * stdin closed, up to {@link #STOP_TIMEOUT} for a clean stop, then SIGTERM and SIGKILL of the child's own PID.
 */
public final class LakeQueryProcess implements AutoCloseable {

    public static final String CLASSPATH_RESOURCE = "streamhouse-lake-query.classpath";
    public static final String LOG_FILE = "lake-query.log";
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(5);
    private static final System.Logger LOG = System.getLogger(LakeQueryProcess.class.getName());

    private final Process process;
    private final URI url;
    private final Path logFile;
    private final CompletableFuture<URI> ready;
    private final long startedNanos;
    private ShutdownHook shutdownHook;
    private boolean closed;

    private LakeQueryProcess(Process process, URI url, Path logFile, CompletableFuture<URI> ready, long startedNanos) {
        this.process = process;
        this.url = url;
        this.logFile = logFile;
        this.ready = ready;
        this.startedNanos = startedNanos;
    }

    /**
     * The child's command line, environment and working directory for {@code options} on {@code port}, as this class
     * starts it and as a supervisor's child spec restarts it.
     */
    public record Launch(List<String> command, Map<String, String> environment, Path workingDir) {
        public Launch {
            command = List.copyOf(command);
            environment = Map.copyOf(environment);
        }
    }

    public static Launch launch(LakeQueryOptions options, int port) {
        Path dataDir = options.dataDir().toAbsolutePath();
        Path tmp = dataDir.resolve("tmp");
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the query service's directory " + dataDir, e);
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + options.maxHeap(), "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData",
                "-Djava.awt.headless=true", "-Djava.io.tmpdir=" + tmp));
        // What Flink's own scripts open: Kryo serialises the compaction's scan tasks (ByteBuffers, collections) by reflection.
        for (String pkg : List.of("java.lang", "java.io", "java.nio", "java.net", "java.util", "java.util.concurrent",
                "java.lang.reflect", "java.time", "java.text")) {
            command.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
        }
        command.addAll(List.of("-cp", childClasspath(), LakeQueryMain.class.getName(),
                "--bootstrap", options.bootstrapServers(), "--registry", options.registryUrl(),
                "--port", Integer.toString(port), "--parallelism", Integer.toString(options.parallelism())));
        // Its Kafka tables log in as user lake-query with the settings this process runs with.
        Map<String, String> env = new HashMap<>(KafkaClientSettings.childEnvironment());
        options.lake().ifPresent(lake -> {
            command.addAll(List.of("--iceberg-uri", lake.jdbcUrl(), "--warehouse", lake.warehouse()));
            if (lake.user() != null) {
                command.addAll(List.of("--iceberg-user", lake.user()));
            }
            if (lake.password() != null) {
                env.put(LakeQueryMain.PASSWORD_ENV, lake.password());
            }
        });
        command.addAll(options.maintenance().toArgs());
        return new Launch(command, env, dataDir);
    }

    public static LakeQueryProcess start(LakeQueryOptions options) {
        long t0 = System.nanoTime();
        int port = options.port() == 0 ? freePort() : options.port();
        Launch launch = launch(options, port);
        Path logFile = launch.workingDir().resolve(LOG_FILE);
        List<String> command = launch.command();
        ProcessBuilder builder = new ProcessBuilder(command).directory(launch.workingDir().toFile())
                .redirectOutput(ProcessBuilder.Redirect.PIPE)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().putAll(launch.environment());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot launch the query service's JVM: " + command.get(0), e);
        }
        CompletableFuture<URI> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> readStdout(process, ready), "streamhouse-lake-query-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        LakeQueryProcess child = new LakeQueryProcess(process, URI.create("http://127.0.0.1:" + port), logFile, ready, t0);
        child.shutdownHook = ShutdownHook.register("streamhouse-lake-query-stop-" + process.pid(), child::close);
        return child;
    }

    /** Base URL of the service ({@code POST /v1/query}); known before it is ready. */
    public URI url() {
        return url;
    }

    /**
     * Waits until the engine answers; otherwise kills the child and throws with the tail of its log.
     *
     * @return how long the start took, from {@link #start}
     */
    public Duration awaitReady(Duration timeout) {
        try {
            ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            throw new IllegalStateException("the query service did not become ready ("
                    + (e instanceof TimeoutException ? "timeout " + timeout.toSeconds() + " s" : e.getCause().getMessage())
                    + "); killed pid " + process.pid() + ". Last lines of " + logFile + ":\n" + LocalFiles.tail(logFile, 40), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the query service", e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);
        LOG.log(Level.INFO, "query service ready at {0} in {1} ms (pid {2})", url, Long.toString(took.toMillis()),
                Long.toString(process.pid()));
        return took;
    }

    public boolean isReady() {
        return ready.isDone() && !ready.isCompletedExceptionally();
    }

    public long pid() {
        return process.pid();
    }

    public ProcessHandle processHandle() {
        return process.toHandle();
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        shutdownHook.releaseUnlessRunning();
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing the query service's stdin failed", e);
        }
        if (!LocalProcesses.waitFor(process.toHandle(), STOP_TIMEOUT)) {
            LOG.log(Level.WARNING, "query service pid {0} did not stop within {1} s; terminating it",
                    Long.toString(process.pid()), Long.toString(STOP_TIMEOUT.toSeconds()));
            LocalProcesses.kill(process, KILL_TIMEOUT);
        }
    }

    @Override
    public String toString() {
        return "LakeQueryProcess[pid=" + process.pid() + ", url=" + url + "]";
    }

    static String childClasspath() {
        return RecordedClasspath.of(LakeQueryProcess.class, CLASSPATH_RESOURCE, "deploy/lake-query");
    }

    private static void readStdout(Process process, CompletableFuture<URI> ready) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (!ready.isDone() && line.startsWith(LakeQueryMain.READY_PREFIX)) {
                    ready.complete(URI.create(line.substring(LakeQueryMain.READY_PREFIX.length()).trim()));
                } else {
                    LOG.log(Level.DEBUG, "query service stdout: {0}", line);
                }
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "query service stdout closed", e);
        }
        if (!ready.isDone()) {
            ready.completeExceptionally(new IllegalStateException("the query service's JVM (pid " + process.pid()
                    + ") exited before it was ready" + (process.isAlive() ? "" : ", code " + process.exitValue())));
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
