package io.streamhouse.supervisor;

import io.streamhouse.control.ExitInfo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One run of a child process, from launch to exit. {@link #start} returns only once the child is ready (per its
 * {@link Readiness}); if it exits first, or is not ready within the spec's start timeout, it is killed and the
 * {@link ChildStartException} carries the last lines of its log.
 *
 * <p>No orphan: this JVM holds the only write end of the child's stdin, so when this JVM dies, even by
 * {@code kill -9}, the kernel closes it and the child exits on end-of-file (the JDK closes inherited descriptors
 * in every child it starts). {@link #stop()} closes that pipe, waits the spec's grace, then sends SIGTERM and
 * SIGKILL, descendants included. {@link #kill()} is {@code kill -9}, for drills. Both are idempotent.
 */
public final class ChildProcess {
    static final Duration KILL_TIMEOUT = Duration.ofSeconds(5);
    private static final int LOG_TAIL_LINES = 40;
    private static final Duration PROBE_INTERVAL = Duration.ofMillis(100);
    private static final System.Logger LOG = System.getLogger(ChildProcess.class.getName());

    private final ChildSpec spec;
    private final Process process;
    private final String readyValue;
    private final Duration startDuration;

    private ChildProcess(ChildSpec spec, Process process, String readyValue, Duration startDuration) {
        this.spec = spec;
        this.process = process;
        this.readyValue = readyValue;
        this.startDuration = startDuration;
    }

    /** Launches the child and waits until it is ready. */
    public static ChildProcess start(ChildSpec spec) {
        return start(spec, p -> { });
    }

    /**
     * As {@link #start(ChildSpec)}; {@code onLaunch} gets the process as soon as it exists, so that an owner can end
     * a start that is no longer wanted (the wait then fails as for any child that exits before it is ready).
     */
    public static ChildProcess start(ChildSpec spec, java.util.function.Consumer<Process> onLaunch) {
        long t0 = System.nanoTime();
        long logOffset;
        try {
            Files.createDirectories(spec.workingDir());
            Files.createDirectories(spec.logFile().toAbsolutePath().getParent());
            logOffset = Files.exists(spec.logFile()) ? Files.size(spec.logFile()) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + spec.workingDir() + " for " + spec.name(), e);
        }
        boolean pipeStdout = spec.readiness() instanceof Readiness.StdoutLine;
        ProcessBuilder builder = new ProcessBuilder(deafToTheTerminal(spec.command()))
                .directory(spec.workingDir().toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                // JVM launch errors (bad classpath, bad -Xmx) land here too.
                .redirectError(ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()))
                .redirectOutput(pipeStdout ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()));
        builder.environment().putAll(spec.environment());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new ChildStartException(spec.name() + ": cannot launch " + spec.command().get(0) + ": " + e.getMessage(), e);
        }
        onLaunch.accept(process);
        String ready;
        try {
            // Java 17: no pattern switch yet; the interface is sealed, so these three are all.
            if (spec.readiness() instanceof Readiness.StdoutLine line) {
                ready = awaitStdoutLine(spec, process, line.prefix());
            } else if (spec.readiness() instanceof Readiness.LogLine line) {
                ready = awaitLogLine(spec, process, line.prefix(), logOffset);
            } else {
                ready = awaitHttp(spec, process, (Readiness.HttpOk) spec.readiness());
            }
        } catch (ChildStartException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            throw new ChildStartException(e.getMessage() + "; pid " + process.pid() + " killed. Last lines of " + spec.logFile()
                    + ":\n" + LocalFiles.tail(spec.logFile(), LOG_TAIL_LINES), e.getCause());
        } catch (InterruptedException e) {
            LocalProcesses.kill(process, KILL_TIMEOUT);
            Thread.currentThread().interrupt();
            throw new ChildStartException("interrupted while waiting for " + spec.name() + " to start", e);
        }
        return new ChildProcess(spec, process, ready, Duration.ofNanos(System.nanoTime() - t0));
    }

    /**
     * {@code command} run so that it ignores SIGINT and SIGHUP. A terminal's Ctrl-C or hang-up reaches its whole
     * foreground process group; the owner alone acts on it and stops its children in order, as for {@code down}
     * (a child stopping on its own, the broker first, would leave the others waiting for it). If the owner dies, they
     * still exit when its pipe closes. An ignored signal stays ignored across {@code exec}, and the JVM installs
     * no handler for one ignored at its start; the pid is the command's ({@code exec}). Without {@code /bin/sh}, as is.
     */
    static List<String> deafToTheTerminal(List<String> command) {
        if (!Files.isExecutable(Path.of("/bin/sh"))) {
            return command;
        }
        List<String> wrapped = new java.util.ArrayList<>(List.of("/bin/sh", "-c", "trap '' INT HUP; exec \"$@\"", command.get(0)));
        wrapped.addAll(command);
        return wrapped;
    }

    private static String awaitStdoutLine(ChildSpec spec, Process process, String prefix) throws InterruptedException {
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (!ready.isDone() && line.startsWith(prefix)) {
                        ready.complete(line.substring(prefix.length()).trim());
                    } else {
                        LOG.log(Level.WARNING, "unexpected {0} stdout: {1}", spec.name(), line);
                    }
                }
            } catch (IOException e) {
                LOG.log(Level.DEBUG, spec.name() + " stdout closed", e);
            }
            ready.complete(null); // no-op once ready; otherwise stdout closed first
        }, "streamhouse-" + spec.name() + "-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        try {
            String value = ready.get(spec.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (value == null) {
                throw new ChildStartException(spec.name() + " closed stdout before it was ready (" + exitOf(process) + ")", null);
            }
            return value;
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ChildStartException(spec.name() + " did not become ready within " + spec.startTimeout().toSeconds() + " s", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new ChildStartException(spec.name() + ": " + e.getCause(), e.getCause());
        }
    }

    private static String awaitLogLine(ChildSpec spec, Process process, String prefix, long offset) throws InterruptedException {
        long until = System.nanoTime() + spec.startTimeout().toNanos();
        while (System.nanoTime() < until) {
            String found = findLine(spec.logFile(), offset, prefix);
            if (found != null) {
                return found;
            }
            if (!process.isAlive()) {
                throw new ChildStartException(spec.name() + " exited with " + new ExitInfo(process.exitValue(), java.time.Instant.now()).describe()
                        + " before it was ready", null);
            }
            // Bounded by the deadline; the child is a separate process, there is no event to wait on.
            process.waitFor(PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
        throw new ChildStartException(spec.name() + " did not become ready within " + spec.startTimeout().toSeconds() + " s", null);
    }

    private static String findLine(Path log, long offset, String prefix) {
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            if (file.length() <= offset) {
                return null;
            }
            file.seek(offset);
            byte[] bytes = new byte[(int) Math.min(Integer.MAX_VALUE - 8, file.length() - offset)];
            file.readFully(bytes);
            for (String line : new String(bytes, StandardCharsets.UTF_8).lines().toList()) {
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String awaitHttp(ChildSpec spec, Process process, Readiness.HttpOk http) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest probe = HttpRequest.newBuilder(http.base().resolve(http.path())).timeout(Duration.ofSeconds(2)).build();
        long until = System.nanoTime() + spec.startTimeout().toNanos();
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new ChildStartException(spec.name() + " exited with " + new ExitInfo(process.exitValue(), java.time.Instant.now()).describe()
                        + " before it was ready", null);
            }
            try {
                if (client.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return http.base().toString();
                }
            } catch (IOException notListeningYet) {
                // keep waiting
            }
            // Bounded by the deadline; the child is a separate process, there is no event to wait on.
            process.waitFor(PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
        throw new ChildStartException(spec.name() + " was not ready (" + http.path() + " did not answer 200) within "
                + spec.startTimeout().toSeconds() + " s", null);
    }

    private static String exitOf(Process process) {
        return LocalProcesses.waitFor(process.toHandle(), KILL_TIMEOUT)
                ? new ExitInfo(process.exitValue(), java.time.Instant.now()).describe() : "still running";
    }

    public ChildSpec spec() {
        return spec;
    }

    /** The rest of the ready line, or the probed base URL. */
    public String readyValue() {
        return readyValue;
    }

    public long pid() {
        return process.pid();
    }

    public ProcessHandle handle() {
        return process.toHandle();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Completes when the child exited, with its exit value. */
    public CompletableFuture<Integer> onExit() {
        return process.onExit().thenApply(Process::exitValue);
    }

    public Duration startDuration() {
        return startDuration;
    }

    /**
     * Clean stop: stdin closed (the child shuts down by itself), up to the spec's grace, then SIGTERM and SIGKILL;
     * descendants get SIGTERM then SIGKILL. Returns whether the child stopped within the grace.
     */
    public boolean stop() {
        List<ProcessHandle> descendants = process.descendants().toList();
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing " + spec.name() + " stdin failed", e);
        }
        boolean clean = LocalProcesses.waitFor(process.toHandle(), spec.stopGrace());
        if (!clean) {
            LOG.log(Level.WARNING, "{0} pid {1} did not stop within {2} s after stdin closed; terminating it",
                    spec.name(), Long.toString(process.pid()), Long.toString(spec.stopGrace().toSeconds()));
            LocalProcesses.kill(process, KILL_TIMEOUT);
        }
        for (ProcessHandle descendant : descendants) {
            descendant.destroy();
            if (!LocalProcesses.waitFor(descendant, KILL_TIMEOUT)) {
                descendant.destroyForcibly();
            }
        }
        return clean;
    }

    /** {@code kill -9} of the child (and its descendants): no clean stop. Returns once it has exited. */
    public void kill() {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        LocalProcesses.waitFor(process.toHandle(), KILL_TIMEOUT);
    }

    @Override
    public String toString() {
        return spec.name() + "[pid=" + process.pid() + ", " + readyValue + "]";
    }
}
