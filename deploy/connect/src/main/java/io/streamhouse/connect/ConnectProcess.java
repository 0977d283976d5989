package io.streamhouse.connect;

import io.streamhouse.security.kafka.KafkaClientSettings;

import io.streamhouse.supervisor.RecordedClasspath;
import io.streamhouse.supervisor.ChildSpec;
import io.streamhouse.control.ChildState;
import io.streamhouse.supervisor.LocalFiles;
import io.streamhouse.supervisor.Readiness;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.SupervisedComponent;
import io.streamhouse.supervisor.Supervisor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
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
import java.util.concurrent.TimeUnit;

/**
 * A Kafka Connect worker (distributed mode) running in a child JVM ({@link ConnectMain}), seen from the parent: the
 * worker's {@link ChildSpec} on top of the {@link Supervisor}. JDK-only on purpose, like {@code BrokerProcess}:
 * applications depend on this module with an exclusion of {@code *:*}, and the child's classpath comes from the
 * resource {@value #CLASSPATH_RESOURCE} written at build time.
 *
 * <p>Guarantees: {@link #start} returns once the worker's REST server answers; otherwise the child is killed and the
 * exception carries the tail of its log. The REST port and the worker configuration are fixed before the first
 * start, so a restart by the supervisor comes back on the same URL and re-registers nothing: the connectors and their
 * offsets live in Kafka's config and offset topics. No orphan: the child exits when its stdin reaches end-of-file,
 * which the kernel causes if this JVM dies. {@link #close()} is idempotent: stdin closed, up to
 * {@link #STOP_TIMEOUT} for a clean stop, then SIGTERM and SIGKILL. {@link #kill()} is {@code kill -9} of the child
 * with no restart, for failover tests that start a replacement themselves. Connectors are managed over the REST API
 * ({@link #putConnector}, {@link #awaitRunning}).
 */
public final class ConnectProcess implements SupervisedComponent {

    public static final String CLASSPATH_RESOURCE = "streamhouse-connect.classpath";
    /** Component name under the supervisor. */
    public static final String COMPONENT = "connect";
    public static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final int LOG_TAIL_LINES = 60;
    private static final System.Logger LOG = System.getLogger(ConnectProcess.class.getName());

    private final SupervisedChild child;
    private final URI restUrl;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private ConnectProcess(SupervisedChild child, URI restUrl) {
        this.child = child;
        this.restUrl = restUrl;
    }

    /** Starts a worker that is not restarted if it dies. */
    public static ConnectProcess start(ConnectOptions options) {
        return start(options, Supervisor.unsupervised());
    }

    /** Starts a worker under {@code supervisor} (component {@value #COMPONENT}) and waits until its REST API answers. */
    public static ConnectProcess start(ConnectOptions options, Supervisor supervisor) {
        return start(options, supervisor, COMPONENT);
    }

    /**
     * Worker {@code k} (1-based) of a Connect cluster: component {@value #COMPONENT} for the first, {@code connect-k}
     * for the others, each with its own data directory; all of one group share its connectors and tasks.
     */
    public static String component(int k) {
        return k == 1 ? COMPONENT : COMPONENT + "-" + k;
    }

    /** Starts a worker under {@code supervisor} as {@code component} and waits until its REST API answers. */
    public static ConnectProcess start(ConnectOptions options, Supervisor supervisor, String component) {
        Path dataDir = options.dataDir();
        int restPort = options.restPort() == 0 ? freePort() : options.restPort();
        Path configFile = dataDir.resolve("connect-worker.properties");
        Path logFile = dataDir.resolve(ConnectMain.LOG_FILE);
        try {
            Files.createDirectories(dataDir);
            try (Writer out = Files.newBufferedWriter(configFile, StandardCharsets.UTF_8)) {
                out.write("# written by " + ConnectProcess.class.getName() + " for one worker (and its restarts)\n");
                for (Map.Entry<String, String> e : WorkerConfig.of(options, restPort).entrySet()) {
                    out.write(e.getKey() + "=" + e.getValue().replace("\\", "\\\\") + "\n");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare Connect data directory " + dataDir, e);
        }
        List<String> command = new ArrayList<>();
        command.add(ChildSpec.javaBin());
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
        ChildSpec spec = new ChildSpec(component, command, KafkaClientSettings.childEnvironment(), dataDir, logFile,
                new Readiness.StdoutLine(ConnectMain.READY_PREFIX), START_TIMEOUT, STOP_TIMEOUT);
        SupervisedChild child = supervisor.start(spec);
        String url = child.endpoint();
        String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        ConnectProcess worker = new ConnectProcess(child, URI.create(base));
        LOG.log(Level.INFO, "Kafka Connect worker ready at {0} in {1} ms (pid {2})", base,
                Long.toString(child.lastStartDuration().toMillis()), Long.toString(child.pid()));
        return worker;
    }

    /** Base URL of the worker's REST API (127.0.0.1); the same after a restart. */
    public URI restUrl() {
        return restUrl;
    }

    @Override
    public SupervisedChild supervised() {
        return child;
    }

    /** Stopped on purpose or given up: it will not come back by itself (a restarting worker is not stopped). */
    public boolean isStopped() {
        ChildState state = child.status().state();
        return state == ChildState.STOPPED || state == ChildState.FAILED;
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

    /** The worker's Kafka Connect version ({@code GET /}), or {@code unknown} when it does not answer. */
    public String workerVersion() {
        HttpRequest request = HttpRequest.newBuilder(restUrl.resolve("/"))
                .timeout(Duration.ofSeconds(10)).header("Accept", "application/json").GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"").matcher(response.body());
            return response.statusCode() == 200 && m.find() ? m.group(1) : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
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

    /**
     * Waits until the connector and at least one task report RUNNING. A FAILED connector or task is restarted once
     * ({@code POST /connectors/{name}/restart?includeTasks=true&onlyFailed=true}) and fails the wait if it fails again.
     * Why once: the worker resumes the connectors of its config topic as it starts, with the configuration an earlier
     * run registered; when that one no longer works (the embedded PostgreSQL of the catalog came back on another port)
     * its task fails before {@link #putConnector} has replaced the configuration, and the replaced configuration does
     * not restart a failed task by itself.
     */
    public void awaitRunning(String name, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        boolean restarted = false;
        while (System.nanoTime() < deadline) {
            last = status(name);
            if (last.contains("\"FAILED\"") && !restarted) {
                restartFailed(name);
                restarted = true;
                continue;
            }
            if (last.contains("\"FAILED\"")) {
                throw new IllegalStateException("connector " + name + " failed: " + last + "\nLast lines of " + logFile()
                        + ":\n" + LocalFiles.tail(logFile(), LOG_TAIL_LINES));
            }
            int idx = last.indexOf("\"tasks\"");
            if (idx > 0 && last.substring(0, idx).contains("\"RUNNING\"") && last.substring(idx).contains("\"RUNNING\"")) {
                return;
            }
            pause(Duration.ofMillis(200));
        }
        throw new IllegalStateException("connector " + name + " not RUNNING within " + timeout.toSeconds() + " s; status: "
                + last + "\nLast lines of " + logFile() + ":\n" + LocalFiles.tail(logFile(), LOG_TAIL_LINES));
    }

    private void restartFailed(String name) {
        HttpRequest request = HttpRequest.newBuilder(restUrl.resolve("/connectors/" + name + "/restart?includeTasks=true&onlyFailed=true"))
                .timeout(Duration.ofSeconds(10)).header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() >= 300) {
                throw new IllegalStateException("connector " + name + " failed and could not be restarted: "
                        + response.statusCode() + " " + response.body());
            }
            // The restart is asynchronous: until the failed task is replaced, its old FAILED state is still reported.
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (status(name).contains("\"FAILED\"") && System.nanoTime() < until) {
                pause(Duration.ofMillis(200));
            }
        } catch (IOException e) {
            throw new IllegalStateException("connector " + name + " failed and could not be restarted: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** {@code kill -9} of the worker JVM, not restarted: no clean stop, no offset flush, open transactions left to be aborted. */
    public void kill() {
        child.killAndStop();
        close();
    }

    @Override
    public String toString() {
        return "ConnectProcess[pid=" + pid() + ", rest=" + restUrl + "]";
    }

    static String childClasspath() {
        return RecordedClasspath.of(ConnectProcess.class, CLASSPATH_RESOURCE, "deploy/connect");
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
