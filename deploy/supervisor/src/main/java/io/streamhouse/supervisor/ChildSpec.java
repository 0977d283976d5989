package io.streamhouse.supervisor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything needed to start one child process, the same way on every start and restart.
 *
 * <p>Assumption: the child exits by itself when its stdin reaches end-of-file (the broker, Connect, CEP and the apps
 * all watch it), which is how it never outlives this JVM, and how {@link ChildProcess#stop()} asks it to stop cleanly.
 *
 * @param name         component name shown in status and lines (e.g. {@code api})
 * @param command      the full command line, {@code java} first
 * @param environment  added to this JVM's environment
 * @param workingDir   working directory of the child
 * @param logFile      where the child's output goes (appended to, so a restart keeps the previous run's last words)
 * @param readiness    how the child says it is ready
 * @param startTimeout how long to wait for readiness before the child is killed and the start fails
 * @param stopGrace    how long a clean stop (stdin closed) may take before SIGTERM, then SIGKILL
 */
public record ChildSpec(String name, List<String> command, Map<String, String> environment, Path workingDir,
                        Path logFile, Readiness readiness, Duration startTimeout, Duration stopGrace) {

    public ChildSpec {
        Objects.requireNonNull(name, "name");
        command = List.copyOf(command);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command is empty");
        }
        environment = Map.copyOf(environment);
        Objects.requireNonNull(workingDir, "workingDir");
        Objects.requireNonNull(logFile, "logFile");
        Objects.requireNonNull(readiness, "readiness");
        if (startTimeout.isNegative() || startTimeout.isZero() || stopGrace.isNegative()) {
            throw new IllegalArgumentException("startTimeout must be positive and stopGrace not negative");
        }
    }

    /** The running JVM's own {@code java}, which every child uses. */
    public static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
