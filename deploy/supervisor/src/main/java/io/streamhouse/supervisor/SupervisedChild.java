package io.streamhouse.supervisor;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.ExitInfo;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One component kept running by its {@link Supervisor}: the same {@link ChildSpec} on every start, so a restarted
 * broker keeps its port and a restarted Connect worker its configuration (its connectors live in Kafka).
 *
 * <p>Guarantees: an exit nobody asked for is noticed (the JDK's exit callback, no polling), reported as a
 * {@link SupervisorEvent.Died} line and followed by a restart after the policy's backoff; after
 * {@link RestartPolicy#maxRestarts()} consecutive failures the child is {@link ChildState#FAILED} and left down.
 * {@link #stop()} and {@link #close()} are never followed by a restart, nor is any exit once this JVM is shutting
 * down (a terminal's Ctrl-C reaches the children too). Lifecycle changes are serialised; {@link #status()} never
 * blocks. A stop ends a start that is under way rather than waiting for it to be ready.
 */
public final class SupervisedChild implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SupervisedChild.class.getName());
    private static volatile boolean jvmShuttingDown;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> jvmShuttingDown = true, "streamhouse-supervisor-shutdown-flag"));
    }

    private final ChildSpec spec;
    private final RestartPolicy policy;
    private final Supervisor owner;
    private final ScheduledExecutorService scheduler;
    private volatile ChildStatus status;
    /** The process of a start under way, so that a stop need not wait for it to be ready. */
    private volatile Process launching;
    /** Set by a stop before it takes the lock: a start under way is abandoned, and no restart follows. */
    private volatile boolean stopping;
    // Guarded by this:
    private ChildProcess current;
    private ChildProcess expectedExit;
    private Instant runningSince = Instant.EPOCH;
    private volatile Duration lastStartDuration = Duration.ZERO;
    private int consecutiveFailures;
    private int restarts;
    private ExitInfo lastExit;
    private ScheduledFuture<?> pendingRestart;
    private boolean closed;
    private ShutdownHook shutdownHook;

    SupervisedChild(ChildSpec spec, RestartPolicy policy, Supervisor owner) {
        this.spec = spec;
        this.policy = policy;
        this.owner = owner;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "streamhouse-supervisor-" + spec.name());
            t.setDaemon(true);
            return t;
        });
        this.status = new ChildStatus(spec.name(), ChildState.STARTING, 0, 0, Optional.empty(), "", Instant.now());
    }

    /**
     * First start (or a start after {@link #stop()} or {@link ChildState#FAILED}); returns once ready. If a start
     * other than the first fails, the exception says why and the supervisor goes on trying as after a death (a
     * stack that ran once stays on); a failed first start is {@link ChildState#FAILED} and left to the caller.
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException(spec.name() + " is closed");
        }
        if (current != null && current.isAlive() && current != expectedExit) {
            return;
        }
        cancelPendingRestart();
        stopping = false;
        boolean again = current != null;
        setState(ChildState.STARTING);
        ChildProcess run;
        try {
            run = launch();
        } catch (RuntimeException e) {
            if (stopping) {
                setState(ChildState.STOPPED);
            } else if (again && !closed && !jvmShuttingDown) {
                scheduleRestartOrGiveUp(0, e.getMessage());
            } else {
                setState(ChildState.FAILED);
            }
            throw e;
        }
        if (again) {
            restarts++;
        }
        consecutiveFailures = 0;
        attach(run);
        if (shutdownHook == null) {
            shutdownHook = ShutdownHook.register("streamhouse-" + spec.name() + "-stop", this::close);
        }
        owner.publish(this, new SupervisorEvent.Started(spec.name(), run.pid(), run.readyValue(), run.startDuration()));
    }

    private ChildProcess launch() {
        try {
            return ChildProcess.start(spec, p -> launching = p);
        } finally {
            launching = null;
        }
    }

    /** Ends a start under way (SIGTERM: it is not ready, there is nothing to keep), before waiting for the lock. */
    private void abandonLaunch() {
        stopping = true;
        Process p = launching;
        if (p != null) {
            p.destroy();
        }
    }

    private void attach(ChildProcess run) {
        current = run;
        expectedExit = null;
        lastStartDuration = run.startDuration();
        runningSince = Instant.now();
        setState(ChildState.RUNNING);
        run.onExit().thenAcceptAsync(code -> onExit(run, code), scheduler);
    }

    private synchronized void onExit(ChildProcess run, int code) {
        if (run != current || run == expectedExit || closed) {
            return;
        }
        Instant now = Instant.now();
        lastExit = new ExitInfo(code, now);
        if (jvmShuttingDown) {
            setState(ChildState.STOPPED);
            return;
        }
        if (Duration.between(runningSince, now).compareTo(policy.stableAfter()) >= 0) {
            consecutiveFailures = 0;
        }
        scheduleRestartOrGiveUp(run.pid(), null);
    }

    /** After a death of {@code pid}, or a start that failed with {@code startFailure}: back off and retry, or give up. */
    private void scheduleRestartOrGiveUp(long pid, String startFailure) {
        consecutiveFailures++;
        String why = startFailure != null ? "start failed: " + firstLine(startFailure) : lastExit.describe();
        if (consecutiveFailures > policy.maxRestarts()) {
            setState(ChildState.FAILED);
            owner.publish(this, new SupervisorEvent.GaveUp(spec.name(), why, consecutiveFailures - 1));
            return;
        }
        Duration backoff = policy.backoff(consecutiveFailures);
        setState(ChildState.RESTARTING);
        owner.publish(this, startFailure != null
                ? new SupervisorEvent.RestartFailed(spec.name(), firstLine(startFailure), consecutiveFailures, policy.maxRestarts(), backoff)
                : new SupervisorEvent.Died(spec.name(), pid, lastExit, consecutiveFailures, policy.maxRestarts(), backoff));
        pendingRestart = scheduler.schedule(this::restartAfterDeath, backoff.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static String firstLine(String message) {
        return message == null ? "unknown" : message.lines().findFirst().orElse(message);
    }

    private synchronized void restartAfterDeath() {
        pendingRestart = null;
        if (closed || stopping || jvmShuttingDown || status.state() != ChildState.RESTARTING) {
            return;
        }
        ChildProcess run;
        try {
            run = launch();
        } catch (RuntimeException e) {
            if (stopping) {
                setState(ChildState.STOPPED);
            } else {
                scheduleRestartOrGiveUp(0, e.getMessage());
            }
            return;
        }
        restarts++;
        attach(run);
        owner.publish(this, new SupervisorEvent.Restarted(spec.name(), run.pid(), restarts, run.startDuration()));
    }

    /** {@code kill -9} of the running child, for drills; the supervisor then restarts it as after any death. */
    public synchronized long kill() {
        ChildProcess run = current;
        if (run == null || !run.isAlive()) {
            throw new IllegalStateException(spec.name() + " is not running (" + status.state().label() + ")");
        }
        owner.publish(this, new SupervisorEvent.Killed(spec.name(), run.pid()));
        run.kill();
        return run.pid();
    }

    /** {@code kill -9}, and no restart: for callers that start a replacement themselves. */
    public synchronized void killAndStop() {
        stopping = true;
        cancelPendingRestart();
        if (current != null) {
            expectedExit = current;
            current.kill();
            lastExit = new ExitInfo(137, Instant.now());
        }
        setState(ChildState.STOPPED);
    }

    /**
     * Clean stop (stdin closed, grace, SIGTERM, SIGKILL); not restarted until {@link #start()}. A start under way
     * is ended first. Idempotent.
     */
    public void stop() {
        abandonLaunch();
        stopLocked();
    }

    private synchronized void stopLocked() {
        stopping = true;
        cancelPendingRestart();
        if (current != null && current != expectedExit) {
            ChildProcess run = current;
            expectedExit = run;
            if (run.isAlive()) {
                boolean clean = run.stop();
                owner.publish(this, new SupervisorEvent.Stopped(spec.name(), run.pid(), clean));
            }
        }
        if (status.state() != ChildState.FAILED || current == null || !current.isAlive()) {
            setState(ChildState.STOPPED);
        }
    }

    /** Clean stop, then start; returns once ready again. */
    public synchronized void restart() {
        stopLocked();
        start();
    }

    /** Stops for good and releases the JVM shutdown hook (unless that hook is what runs this). Idempotent. */
    @Override
    public void close() {
        abandonLaunch();
        closeLocked();
    }

    private synchronized void closeLocked() {
        if (closed) {
            return;
        }
        stopLocked();
        closed = true;
        scheduler.shutdownNow();
        if (shutdownHook != null) {
            shutdownHook.releaseUnlessRunning();
        }
    }

    /**
     * Hands stopping over to an owner that stops several pieces in order (JVM shutdown hooks run concurrently, so
     * this one would race the owner's). If the JVM dies without closing, the child still stops on its own.
     */
    public synchronized void releaseShutdownHook() {
        if (shutdownHook != null) {
            shutdownHook.release();
        }
    }

    private void cancelPendingRestart() {
        if (pendingRestart != null) {
            pendingRestart.cancel(false);
            pendingRestart = null;
        }
    }

    private void setState(ChildState state) {
        ChildProcess run = current;
        status = new ChildStatus(spec.name(), state, run == null ? 0 : run.pid(), restarts, Optional.ofNullable(lastExit),
                run == null ? "" : run.readyValue(), Instant.now());
        LOG.log(Level.DEBUG, "{0} is {1}", spec.name(), state.label());
        owner.stateChanged();
    }

    public String name() {
        return spec.name();
    }

    public ChildSpec spec() {
        return spec;
    }

    public ChildStatus status() {
        return status;
    }

    /** The current run's ready value (the endpoint), or empty before the first start. */
    public String endpoint() {
        return status.endpoint();
    }

    public long pid() {
        return status.pid();
    }

    /** From launch to ready, of the latest successful start. */
    public Duration lastStartDuration() {
        return lastStartDuration;
    }

    /** Handle of the current run's process, if one was started. */
    public Optional<ProcessHandle> processHandle() {
        long pid = status.pid();
        return pid == 0 ? Optional.empty() : ProcessHandle.of(pid);
    }

    public boolean isAlive() {
        return processHandle().map(ProcessHandle::isAlive).orElse(false);
    }

    public Path logFile() {
        return spec.logFile();
    }

    @Override
    public String toString() {
        ChildStatus s = status;
        return spec.name() + "[" + s.state().label() + ", pid " + s.pid() + ", " + s.endpoint() + "]";
    }
}
