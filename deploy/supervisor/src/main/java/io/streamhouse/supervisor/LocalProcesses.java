package io.streamhouse.supervisor;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting on local processes (JDK only, used on the parent side). */
public final class LocalProcesses {

    /** Waits up to {@code timeout} for {@code handle} to exit; true if it has. Keeps the interrupt flag. */
    public static boolean waitFor(ProcessHandle handle, Duration timeout) {
        try {
            handle.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return !handle.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !handle.isAlive();
        }
    }

    /**
     * Terminates {@code process} (SIGTERM, then SIGKILL if it has not exited within {@code timeout}) and kills what
     * it had started. For a child that did not stop when asked, or never became ready.
     */
    public static void kill(Process process, Duration timeout) {
        java.util.List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        if (!waitFor(process.toHandle(), timeout)) {
            process.destroyForcibly();
            waitFor(process.toHandle(), timeout);
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    private LocalProcesses() {
    }
}
