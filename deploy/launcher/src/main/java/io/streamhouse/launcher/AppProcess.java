package io.streamhouse.launcher;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Quarkus app (its {@code quarkus-app/quarkus-run.jar}) in a child JVM with a small heap, its output in a log
 * file, and its stdin held open by this process: when this process ends, the child's {@link ExitWithParent}
 * sees end of file and exits too.
 */
public final class AppProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final OutputStream stdin;
    private final URI url;
    private final Path log;

    private AppProcess(String name, Process process, URI url, Path log) {
        this.name = name;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.url = url;
        this.log = log;
    }

    public static AppProcess start(String name, Path quarkusRunJar, int port, Map<String, String> env, Path logDir,
                                   String maxHeap) throws IOException {
        if (!Files.isRegularFile(quarkusRunJar)) {
            throw new IOException(quarkusRunJar + " is missing: build first (./mvnw -DskipTests package)");
        }
        if (port == 0) {
            try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
        }
        Path launcherJar = codeSource();
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // Metaspace: the default first threshold (~21 MB) is crossed after start-up by classes loaded under load,
        // and each crossing is a full collection (2 s seen on the api under the authorize benchmark).
        List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx" + maxHeap, "-XX:+UseSerialGC",
                "-XX:MetaspaceSize=128m"));
        if (!io.streamhouse.platform.JitChoice.fullJit()) {
            // C1 only: starts sooner, sustains less (docs/benchmarks.md, "Authorize").
            command.add("-XX:TieredStopAtLevel=1");
        }
        command.addAll(List.of(
                "-Dquarkus.http.port=" + port,
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager",
                "-cp", launcherJar + java.io.File.pathSeparator + quarkusRunJar.toAbsolutePath(),
                ExitWithParent.class.getName(), "io.quarkus.bootstrap.runner.QuarkusEntryPoint"));
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        pb.environment().putAll(env);
        return new AppProcess(name, pb.start(), URI.create("http://127.0.0.1:" + port), log);
    }

    /** Waits until {@code /q/health/ready} answers 200, or the process dies, or the deadline passes. */
    public void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long until = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited with code " + process.exitValue() + " during start; see " + log);
            }
            try {
                var r = http.send(HttpRequest.newBuilder(url.resolve("/q/health/ready")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notListeningYet) {
                // keep waiting
            }
            // Bounded by the deadline; the app is a separate process, there is no event to wait on.
            process.waitFor(100, TimeUnit.MILLISECONDS);
        }
        throw new IOException(name + " was not ready within " + timeout.toSeconds() + " s; see " + log);
    }

    public URI url() {
        return url;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    /** Closes the child's stdin (it exits cleanly), then terminates it if it has not exited within 20 s. */
    @Override
    public void close() {
        ChildStop.stop(process, stdin, java.time.Duration.ofSeconds(20));
    }

    private static Path codeSource() {
        try {
            return Path.of(ExitWithParent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
