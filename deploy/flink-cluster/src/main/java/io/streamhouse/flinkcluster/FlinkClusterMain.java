package io.streamhouse.flinkcluster;

import org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint;
import org.apache.flink.runtime.taskexecutor.TaskManagerRunner;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

/**
 * Entry point of a Flink cluster child JVM: Flink's own {@code StandaloneSessionClusterEntrypoint} (JobManager) or
 * {@code TaskManagerRunner} (TaskManager), started with {@code --configDir} as Flink's scripts start them, plus what the
 * supervisor expects of a child. Only {@link FlinkSessionCluster} is meant to start it:
 * {@code --role jobmanager|taskmanager --config-dir <dir> --rest-url <url> [--resource-id <id>]}.
 *
 * <p>Guarantees: one ready line on stdout, {@value #JOBMANAGER_READY}{@code <rest url>} once the JobManager's REST API
 * answers, or {@value #TASKMANAGER_READY}{@code <resource id>} once the JobManager lists this TaskManager (its slots
 * are then offered to jobs). The JVM ends when stdin reaches end-of-file (the parent closed it or died, even by
 * {@code kill -9}): {@code System.exit} runs Flink's own shutdown hooks, and the JVM halts after {@link #SHUTDOWN_GRACE}
 * whatever they do.
 */
public final class FlinkClusterMain {
    public static final String JOBMANAGER_READY = "STREAMHOUSE-FLINK-JOBMANAGER-READY ";
    public static final String TASKMANAGER_READY = "STREAMHOUSE-FLINK-TASKMANAGER-READY ";
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(15);
    private static final Duration READY_POLL = Duration.ofMillis(250);

    private FlinkClusterMain() {
    }

    public static void main(String[] args) throws Exception {
        String role = null;
        String configDir = null;
        String restUrl = null;
        String resourceId = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--role" -> role = args[i + 1];
                case "--config-dir" -> configDir = args[i + 1];
                case "--rest-url" -> restUrl = args[i + 1];
                case "--resource-id" -> resourceId = args[i + 1];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (role == null || configDir == null || restUrl == null) {
            throw new IllegalArgumentException("--role, --config-dir and --rest-url are required");
        }
        PrintStream out = System.out;
        watchStdin(System.in);
        String[] flinkArgs = {"--configDir", configDir};
        URI rest = URI.create(restUrl);
        switch (role) {
            case "jobmanager" -> {
                start("flink-jobmanager", () -> StandaloneSessionClusterEntrypoint.main(flinkArgs));
                awaitAnswer(rest, "/overview", null);
                out.println(JOBMANAGER_READY + restUrl);
            }
            case "taskmanager" -> {
                if (resourceId == null) {
                    throw new IllegalArgumentException("a taskmanager needs --resource-id");
                }
                start("flink-taskmanager", () -> TaskManagerRunner.main(flinkArgs));
                awaitAnswer(rest, "/taskmanagers", "\"" + resourceId + "\"");
                out.println(TASKMANAGER_READY + resourceId);
            }
            default -> throw new IllegalArgumentException("--role must be jobmanager or taskmanager, was " + role);
        }
        out.flush();
    }

    private interface FlinkMain {
        void run() throws Exception;
    }

    /** Flink's main on a thread of its own (it blocks until the process ends, and exits the JVM when it fails). */
    private static void start(String name, FlinkMain main) {
        Thread t = new Thread(() -> {
            try {
                main.run();
            } catch (Throwable e) {
                note(name + " failed: " + e);
                e.printStackTrace();
                Runtime.getRuntime().halt(1);
            }
        }, name);
        t.start();
    }

    /** Polls {@code rest + path} until it answers 200 (with {@code mustContain} in the body, when given). */
    private static void awaitAnswer(URI rest, String path, String mustContain) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest request = HttpRequest.newBuilder(rest.resolve(path)).timeout(Duration.ofSeconds(5)).GET().build();
        while (true) { // the parent's start timeout bounds this wait: it kills a child that is not ready in time
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && (mustContain == null || r.body().contains(mustContain))) {
                    return;
                }
            } catch (IOException notYet) {
                // the REST server is not up yet
            }
            Thread.sleep(READY_POLL.toMillis()); // poll interval between readiness probes
        }
    }

    private static void watchStdin(InputStream in) {
        Thread watcher = new Thread(() -> {
            byte[] buffer = new byte[256];
            try {
                while (in.read(buffer) != -1) {
                    // only end-of-file matters
                }
            } catch (IOException e) {
                note("stdin failed (" + e + "); treating it as end-of-file");
            }
            note("stdin reached end-of-file: the parent closed it or died; stopping");
            Thread guard = new Thread(() -> {
                try {
                    Thread.sleep(SHUTDOWN_GRACE.toMillis()); // a deadline, not a wait for a condition
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
                note("Flink did not stop within " + SHUTDOWN_GRACE + "; halting");
                Runtime.getRuntime().halt(2);
            }, "streamhouse-flink-shutdown-guard");
            guard.setDaemon(true);
            guard.start();
            System.exit(0);
        }, "streamhouse-flink-stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static void note(String message) {
        System.err.println(Instant.now() + " [streamhouse-flink] " + message);
    }
}
