package io.streamhouse.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code ./streamhouse up} for the launcher's ITs: the launcher in its own JVM as the script starts it, every port
 * picked free, its output to a file, waited for until it is ready.
 */
final class LauncherJvm {

    /** Starts {@code up --data <data> --fresh <options> --kafka-port 0 ...} and waits (at most 4 min) until it is ready. */
    static Process up(Path data, Path out, String... options) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-Dstreamhouse.home=" + System.getProperty("streamhouse.home"),
                Launcher.class.getName(), "up", "--data", data.toString(), "--fresh"));
        command.addAll(List.of(options));
        command.addAll(List.of("--kafka-port", "0", "--registry-port", "0", "--ingest-port", "0", "--api-port", "0"));
        ProcessBuilder up = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        // Through the environment, not -cp: the JDK reads at most 4 KB of another process's command line, and the
        // pid file recognises the launcher by its main class there.
        up.environment().put("CLASSPATH", System.getProperty("java.class.path"));
        Process launcher = up.start();
        try {
            await("stack ready (see " + out + ")").atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        assertThat(launcher.isAlive()).as("launcher alive; its output: " + out).isTrue();
                        return Files.readString(out).contains("Streamhouse is ready");
                    });
        } catch (RuntimeException | AssertionError notReady) {
            // never leave what it started behind (by PID)
            List<ProcessHandle> started = launcher.descendants().toList();
            launcher.destroyForcibly();
            started.forEach(ProcessHandle::destroyForcibly);
            throw notReady;
        }
        return launcher;
    }

    private LauncherJvm() {
    }
}
