package io.streamhouse.connect;

import io.streamhouse.broker.LocalFiles;
import io.streamhouse.broker.LocalProcesses;
import io.streamhouse.broker.ShutdownHook;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A Kafka Connect worker (distributed mode) running in a child JVM ({@link ConnectMain}), seen from the parent.
 * JDK-only on purpose, like {@code BrokerProcess}: applications depend on this module with an exclusion of
 * {@code *:*}, and the child's classpath comes from the resource {@value #CLASSPATH_RESOURCE} written at build time.
 *
 * <p>Guarantees: {@link #start} returns once the worker's REST server answers; otherwise the child is killed and the
 * exception carries the tail of its log. No orphan: the child exits when its stdin reaches end-of-file, which the
 * kernel causes if this JVM dies. {@link #close()} is idempotent: stdin closed, up to {@link #STOP_TIMEOUT} for a
 * clean stop, then SIGTERM and SIGKILL. {@link #kill()} is {@code kill -9} of the child, for failover drills.
 * Connectors are managed over the REST API ({@link #putConnector}, {@link #awaitRunning}).
 */
public final class ConnectProcess implements AutoCloseable {

    public static final String CLASSPATH_RESOURCE = "streamhouse-connect.classpath";
    public static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final int LOG_TAIL_LINES = 60;
    private static final System.Logger LOG = System.getLogger(ConnectProcess.class.getName());

    private final Process process;
    private final URI restUrl;
    private final Path logFile;
    private final Duration startDuration;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private ShutdownHook shutdownHook;
    private boolean closed;

    private ConnectProcess(Process process, URI restUrl, Path logFile, Duration startDuration) {
        this.process = process;
        this.restUrl = restUrl;
        this.logFile = logFile;
        this.startDuration = startDuration;
    }

    public static ConnectProcess start(ConnectOptions options) {
        long t0 = System.nanoTime();
        Path dataDir = options.dataDir();
        int restPort = options.restPort() == 0 ? freePort() : options.restPort();
        Path configFile = dataDir.resolve("connect-worker.properties");
        Path logFile = dataDir.resolve(ConnectMain.LOG_FILE);
        try {
            Files.createDirectories(dataDir);
            try (Writer out = Files.newBufferedWriter(configFile, StandardCharsets.UTF_8)) {
                out.write("# written by " + ConnectProcess.class.getName() + " for one worker start\n");
                for (Map.Entry<String, String> e : WorkerConfig.of(options, restPort).entrySet()) {
                    out.write(e.getKey() + "=" + e.getValue().replace("\\", "\\\\") + "\n");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare Connect data directory " + dataDir, e);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + options.maxHeap());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.add("-XX:-UsePerfData");
        command.add("-Djava.awt.headless=true");
        command.add("-cp");
        command.add(childClasspath());
        command.add(ConnectMain.class.getName());
        command.add("--config");
        command.add(configFile.toString());
        command.add("--data-dir");
        command.add(dataDir.toString());
        Process process;
        try {
            process = new ProcessBuilder(command).directory(dataDir.toFile())
                    .redirectOutput(ProcessBuilder.Redirect.PIPE)
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot launch the Connect JVM: " + command.get(0), e);
        }
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> readStdout(process, ready), "streamhouse-connect-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        String url;
        try {
            url = ready.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            throw new IllegalStateException("Connect worker did not become ready ("
                    + (e instanceof TimeoutException ? "timeout " + START_TIMEOUT.toSeconds() + " s" : e.getCause().getMessage())
                    + "); killed pid " + process.pid() + ". Last lines of " + logFile + ":\n" + LocalFiles.tail(logFile, LOG_TAIL_LINES), e);
        } catch (InterruptedException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the Connect worker", e);
        }
        String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        ConnectProcess worker = new ConnectProcess(process, URI.create(base), logFile, Duration.ofNanos(System.nanoTime() - t0));
        worker.shutdownHook = ShutdownHook.register("streamhouse-connect-stop-" + process.pid(), worker::close);
        LOG.log(Level.INFO, "Kafka Connect worker ready at {0} in {1} ms (pid {2})", base,
                Long.toString(worker.startDuration.toMillis()), Long.toString(process.pid()));
        return worker;
    }

    /** Base URL of the worker's REST API (127.0.0.1). */
    public URI restUrl() {
        return restUrl;
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

    public Duration startDuration() {
        return startDuration;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Creates or updates a connector ({@code PUT /connectors/{name}/config}, idempotent). A worker that is still
     * joining its group answers 409 or 5xx: retried until {@link #REQUEST_TIMEOUT}.
     */
    public void putConnector(String name, Map<String, String> config) {
        String body = Json.object(config);
        HttpRequest request = HttpRequest.newBuilder(restUrl.resolve("/connectors/" + name + "/config"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build();
        long deadline = System.nanoTime() + REQUEST_TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                int code = response.statusCode();
                if (code == 200 || code == 201) {
                    return;
                }
                last = code + " " + response.body();
                if (code >= 400 && code < 500 && code != 409 && code != 404) {
                    throw new IllegalStateException("Connect refused connector " + name + ": " + last);
                }
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while registering connector " + name, e);
            }
            pause(Duration.ofMillis(250));
        }
        throw new IllegalStateException("could not register connector " + name + " within " + REQUEST_TIMEOUT.toSeconds()
                + " s; last answer: " + last);
    }

    /** {@code GET /connectors/{name}/status} as JSON text, or empty when the connector is unknown (404). */
    public String status(String name) {
        HttpRequest request = HttpRequest.newBuilder(restUrl.resolve("/connectors/" + name + "/status"))
                .timeout(Duration.ofSeconds(10)).header("Accept", "application/json").GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Waits until the connector and at least one task report RUNNING; fails early if a task FAILED. */
    public void awaitRunning(String name, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            last = status(name);
            if (last.contains("\"FAILED\"")) {
                throw new IllegalStateException("connector " + name + " failed: " + last + "\nLast lines of " + logFile
                        + ":\n" + LocalFiles.tail(logFile, LOG_TAIL_LINES));
            }
            int idx = last.indexOf("\"tasks\"");
            if (idx > 0 && last.substring(0, idx).contains("\"RUNNING\"") && last.substring(idx).contains("\"RUNNING\"")) {
                return;
            }
            pause(Duration.ofMillis(200));
        }
        throw new IllegalStateException("connector " + name + " not RUNNING within " + timeout.toSeconds() + " s; status: "
                + last + "\nLast lines of " + logFile + ":\n" + LocalFiles.tail(logFile, LOG_TAIL_LINES));
    }

    /** {@code kill -9} of the worker JVM: no clean stop, no offset flush, open transactions left to be aborted. */
    public void kill() {
        process.destroyForcibly();
        LocalProcesses.waitFor(process.toHandle(), KILL_TIMEOUT);
        close();
    }

    public void releaseShutdownHook() {
        shutdownHook.release();
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
            LOG.log(Level.DEBUG, "closing Connect stdin failed", e);
        }
        boolean clean = LocalProcesses.waitFor(process.toHandle(), STOP_TIMEOUT);
        if (!clean) {
            LOG.log(Level.WARNING, "Connect pid {0} did not stop within {1} s; terminating it",
                    Long.toString(process.pid()), Long.toString(STOP_TIMEOUT.toSeconds()));
            LocalProcesses.kill(process, KILL_TIMEOUT);
        }
        LOG.log(Level.INFO, "Kafka Connect pid {0} stopped", Long.toString(process.pid()));
    }

    @Override
    public String toString() {
        return "ConnectProcess[pid=" + process.pid() + ", rest=" + restUrl + "]";
    }

    static String childClasspath() {
        List<String> entries = new ArrayList<>();
        try {
            entries.add(Path.of(ConnectProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the streamhouse-connect code", e);
        }
        String recorded;
        try (InputStream in = ConnectProcess.class.getResourceAsStream("/" + CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + CLASSPATH_RESOURCE + " is missing: build streamhouse-connect with Maven");
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
            throw new IllegalStateException("the Connect classpath recorded at build time names missing files " + missing
                    + ": run `./mvnw -pl deploy/connect -am package`");
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static void readStdout(Process process, CompletableFuture<String> ready) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (!ready.isDone() && line.startsWith(ConnectMain.READY_PREFIX)) {
                    ready.complete(line.substring(ConnectMain.READY_PREFIX.length()).trim());
                } else {
                    LOG.log(Level.WARNING, "unexpected Connect stdout: {0}", line);
                }
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "Connect stdout closed", e);
        }
        if (!ready.isDone()) {
            ready.completeExceptionally(new IllegalStateException("Connect JVM pid " + process.pid()
                    + " closed stdout before it was ready"));
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    private static void pause(Duration d) {
        try {
            TimeUnit.MILLISECONDS.sleep(d.toMillis()); // retry back-off between REST attempts, bounded by a deadline
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
