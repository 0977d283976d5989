package io.streamhouse.broker;

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

    private LocalProcesses() {
    }
}
