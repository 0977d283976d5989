package io.streamhouse.launcher;

import io.streamhouse.supervisor.ChildSpec;
import io.streamhouse.supervisor.Readiness;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.SupervisedComponent;
import io.streamhouse.supervisor.Supervisor;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Quarkus app (its {@code quarkus-app/quarkus-run.jar}) in a child JVM with a small heap, as a spec for the
 * {@link Supervisor}: ready when {@code /q/health/ready} answers 200, output in {@code <logs>/<name>.log} (emptied
 * at the first start, appended to by restarts), stdin held open by this process so that the child's
 * {@link ExitWithParent} exits when this process ends. The port is fixed before the first start, so a restart
 * answers on the same URL.
 */
final class AppProcess implements SupervisedComponent {
    /**
     * Ready within this or killed: an app alone starts in 10-20 s here, but beside a whole cluster on 2 cores (three
     * brokers, a Flink session cluster, two Connect workers) ingest-2 took 86 s to start and its readiness more.
     */
    static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    static final Duration STOP_GRACE = Duration.ofSeconds(20);

    private final SupervisedChild child;
    private final URI url;

    private AppProcess(SupervisedChild child, URI url) {
        this.child = child;
        this.url = url;
    }

    /** Starts the app under {@code supervisor} (component {@code name}) and returns once it is ready. */
    static AppProcess start(String name, Path quarkusRunJar, int port, Map<String, String> env, Path logDir,
                            String maxHeap, Supervisor supervisor) throws IOException {
        if (!Files.isRegularFile(quarkusRunJar)) {
            throw new IOException(quarkusRunJar + " is missing: build first (./mvnw -DskipTests package)");
        }
        if (port == 0) {
            try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
        }
        Path launcherJar = codeSource();
        // Metaspace: the default first threshold (~21 MB) is crossed after start-up by classes loaded under load,
        // and each crossing is a full collection (2 s seen on the api under the authorize benchmark).
        List<String> command = new ArrayList<>(List.of(ChildSpec.javaBin(), "-Xmx" + maxHeap, "-XX:+UseSerialGC",
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
        Files.deleteIfExists(log); // one log per up; restarts append to it
        URI url = URI.create("http://127.0.0.1:" + port);
        ChildSpec spec = new ChildSpec(name, command, env, Path.of("").toAbsolutePath(), log,
                new Readiness.HttpOk(url, "/q/health/ready"), START_TIMEOUT, STOP_GRACE);
        SupervisedChild child = supervisor.start(spec);
        child.releaseShutdownHook(); // the launcher stops its children in order
        return new AppProcess(child, url);
    }

    URI url() {
        return url;
    }

    @Override
    public SupervisedChild supervised() {
        return child;
    }

    private static Path codeSource() {
        try {
            return Path.of(ExitWithParent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
