package io.streamhouse.broker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * A Kafka broker running in a child JVM ({@link BrokerMain}), seen from the parent. JDK-only on purpose: this class
 * is loaded by applications whose classpath has no Kafka server jar (they depend on this module with an exclusion of
 * {@code *:*}).
 *
 * <p>Assumptions: the build wrote the broker's runtime classpath into the resource {@value #CLASSPATH_RESOURCE}
 * (absolute paths, normally into {@code ~/.m2}), and those files still exist; the code of this module is found where
 * this class was loaded from (a jar or {@code target/classes}). The child runs on the parent's own {@code java}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@link #start} returns only once the child printed its ready line, i.e. an admin request through the client
 *       listener succeeded; otherwise, after {@link #START_TIMEOUT} or when the child exits early, the child is
 *       killed and the exception carries the last lines of its log.</li>
 *   <li>No orphan: the child exits when its stdin reaches end-of-file. {@link #close()} closes that pipe; if the
 *       parent dies, even by {@code kill -9}, the kernel closes it (only the parent holds the write end: the JDK
 *       closes inherited descriptors in every child it starts). A JVM shutdown hook calls {@link #close()} on a
 *       normal exit, SIGTERM or Ctrl-C. A terminal's Ctrl-C also reaches the child (same process group), which then
 *       shuts down through its own hook; both paths end in the same clean stop. Note: a JVM started in the
 *       background ({@code &}) by a non-interactive shell inherits an ignored SIGINT and has no Ctrl-C hook at all;
 *       the stdin guard still covers it.</li>
 *   <li>{@link #close()} is idempotent and thread-safe: stdin closed, up to {@link #STOP_TIMEOUT} for a clean stop,
 *       then SIGTERM, then SIGKILL; descendants of the child (there are none today) get the same treatment.</li>
 * </ul>
 */
public final class BrokerProcess implements AutoCloseable {

    /** Resource holding the broker's runtime classpath, written by maven-dependency-plugin at build time. */
    public static final String CLASSPATH_RESOURCE = "streamhouse-broker.classpath";
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(5);
    private static final int LOG_TAIL_LINES = 40;
    private static final System.Logger LOG = System.getLogger(BrokerProcess.class.getName());

    private final Process process;
    private final String bootstrapServers;
    private final Path logFile;
    private final Duration startDuration;
    private ShutdownHook shutdownHook;
    private boolean closed;

    private BrokerProcess(Process process, String bootstrapServers, Path logFile, Duration startDuration) {
        this.process = process;
        this.bootstrapServers = bootstrapServers;
        this.logFile = logFile;
        this.startDuration = startDuration;
    }

    /** Starts a broker child JVM and waits until it accepts requests. */
    public static BrokerProcess start(BrokerOptions options) {
        long t0 = System.nanoTime();
        Path dataDir = options.dataDir();
        try {
            if (options.wipeOnStart()) {
                LocalFiles.deleteRecursively(dataDir);
            }
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare broker data directory " + dataDir, e);
        }
        Path logFile = dataDir.resolve(BrokerMain.LOG_FILE);
        List<String> command = command(options);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dataDir.toFile())
                .redirectOutput(ProcessBuilder.Redirect.PIPE)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                // JVM launch errors (bad classpath, bad -Xmx) happen before BrokerMain redirects its streams.
                .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot launch broker JVM: " + command.get(0), e);
        }

        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> readStdout(process, ready), "streamhouse-broker-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();

        String bootstrap;
        try {
            bootstrap = ready.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            throw new IllegalStateException("broker did not become ready within " + START_TIMEOUT.toSeconds()
                    + " s; killed pid " + process.pid() + ". Last lines of " + logFile + ":\n" + LocalFiles.tail(logFile, LOG_TAIL_LINES), e);
        } catch (ExecutionException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            throw new IllegalStateException(e.getCause().getMessage() + ". Last lines of " + logFile + ":\n"
                    + LocalFiles.tail(logFile, LOG_TAIL_LINES), e.getCause());
        } catch (InterruptedException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the broker to start", e);
        }

        BrokerProcess broker = new BrokerProcess(process, bootstrap, logFile, Duration.ofNanos(System.nanoTime() - t0));
        broker.shutdownHook = ShutdownHook.register("streamhouse-broker-stop-" + process.pid(), broker::close);
        LOG.log(Level.INFO, "Kafka broker ready at {0} in {1} ms (pid {2}, data {3})",
                bootstrap, Long.toString(broker.startDuration.toMillis()), Long.toString(process.pid()), dataDir);
        return broker;
    }

    /** {@code host:port} for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** PID of the child JVM. */
    public long pid() {
        return process.pid();
    }

    /** Handle of the child JVM, e.g. to watch it end. */
    public ProcessHandle processHandle() {
        return process.toHandle();
    }

    /** The child's log file (Kafka at WARN, lifecycle notes, JVM errors). */
    public Path logFile() {
        return logFile;
    }

    /** Time from {@link #start} to the ready line. */
    public Duration startDuration() {
        return startDuration;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Hands stopping over to an owner that stops several pieces in order (JVM shutdown hooks run concurrently, so
     * this one would race the owner's). If the JVM dies without closing, the child still stops on its own.
     */
    public void releaseShutdownHook() {
        shutdownHook.release();
    }

    /** Stops the broker: stdin EOF (clean shutdown), then SIGTERM, then SIGKILL. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        shutdownHook.releaseUnlessRunning();
        List<ProcessHandle> descendants = process.descendants().collect(Collectors.toList());
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing broker stdin failed", e);
        }
        boolean clean = LocalProcesses.waitFor(process.toHandle(), STOP_TIMEOUT);
        if (!clean) {
            LOG.log(Level.WARNING, "broker pid {0} did not stop within {1} s after stdin closed; terminating it",
                    Long.toString(process.pid()), Long.toString(STOP_TIMEOUT.toSeconds()));
            LocalProcesses.kill(process, KILL_TIMEOUT);
        }
        for (ProcessHandle descendant : descendants) {
            descendant.destroy();
            if (!LocalProcesses.waitFor(descendant, KILL_TIMEOUT)) {
                descendant.destroyForcibly();
            }
        }
        LOG.log(Level.INFO, "Kafka broker pid {0} stopped{1}", Long.toString(process.pid()), clean ? "" : " (forcibly)");
    }

    @Override
    public String toString() {
        return "BrokerProcess[pid=" + process.pid() + ", bootstrap=" + bootstrapServers + "]";
    }

    static List<String> command(BrokerOptions options) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + options.maxHeap());
        if (!options.fullJit()) {
            command.add("-XX:TieredStopAtLevel=1");
        }
        command.add("-XX:+UseSerialGC");
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.add("-XX:-UsePerfData");
        command.add("-Djava.awt.headless=true");
        command.add("-cp");
        command.add(childClasspath());
        command.add(BrokerMain.class.getName());
        command.add("--data-dir");
        command.add(options.dataDir().toString());
        command.add("--port");
        command.add(Integer.toString(options.port()));
        return command;
    }

    /**
     * The module's own code plus the dependency classpath recorded at build time. The code location is taken from
     * this class rather than {@code BrokerMain}, whose constant pool names Kafka classes the parent does not have.
     */
    static String childClasspath() {
        List<String> entries = new ArrayList<>();
        try {
            entries.add(Path.of(BrokerProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the streamhouse-broker code", e);
        }
        String recorded;
        try (InputStream in = BrokerProcess.class.getResourceAsStream("/" + CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + CLASSPATH_RESOURCE + " is missing: build streamhouse-broker"
                        + " with Maven (it is written by maven-dependency-plugin at generate-resources)");
            }
            recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + CLASSPATH_RESOURCE, e);
        }
        List<String> missing = new ArrayList<>();
        for (String entry : recorded.split(java.io.File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            if (!Files.exists(Path.of(entry))) {
                missing.add(entry);
            }
            entries.add(entry);
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("the broker classpath recorded at build time names missing files " + missing
                    + ": run `mvn -pl deploy/broker -am package` (or dependency:resolve) so the local repository has them");
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static void readStdout(Process process, CompletableFuture<String> ready) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (!ready.isDone() && line.startsWith(BrokerMain.READY_PREFIX)) {
                    ready.complete(line.substring(BrokerMain.READY_PREFIX.length()).trim());
                } else {
                    LOG.log(Level.WARNING, "unexpected broker stdout: {0}", line);
                }
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "broker stdout closed", e);
        }
        if (!ready.isDone()) {
            String exit;
            try {
                exit = "exit code " + process.onExit().get(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).exitValue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exit = "exit code unknown";
            } catch (ExecutionException | TimeoutException e) {
                exit = "exit code unknown";
            }
            ready.completeExceptionally(new IllegalStateException(
                    "broker JVM pid " + process.pid() + " closed stdout before it was ready (" + exit + ")"));
        }
    }

}
