package io.streamhouse.supervisor;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A component of the stack as its owner sees it (the broker, Connect, an app, the CEP job, the query service): what
 * they all share comes from the {@link SupervisedChild} behind it, so an implementation holds only its command line
 * and readiness (its {@link ChildSpec}) and what it answers on. Every value is the current run's, the same after a
 * restart by the supervisor.
 */
public interface SupervisedComponent extends AutoCloseable {

    /** The supervised child, for status, kill and restart. */
    SupervisedChild supervised();

    /** PID of the current child JVM. */
    default long pid() {
        return supervised().pid();
    }

    /** Handle of the current child JVM, e.g. to watch it end. */
    default ProcessHandle processHandle() {
        return supervised().processHandle().orElseThrow();
    }

    /** The child's output file; restarts append to it. */
    default Path logFile() {
        return supervised().logFile();
    }

    /** Time from the latest start to ready. */
    default Duration startDuration() {
        return supervised().lastStartDuration();
    }

    default boolean isAlive() {
        return supervised().isAlive();
    }

    /**
     * Hands stopping over to an owner that stops several pieces in order (JVM shutdown hooks run concurrently, so
     * this one would race the owner's). If the JVM dies without closing, the child still stops on its own.
     */
    default void releaseShutdownHook() {
        supervised().releaseShutdownHook();
    }

    /** Stops the child for good: stdin closed (a clean stop), then after its grace SIGTERM, then SIGKILL. Idempotent. */
    @Override
    default void close() {
        supervised().close();
    }
}
