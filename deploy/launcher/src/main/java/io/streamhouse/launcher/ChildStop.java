package io.streamhouse.launcher;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** How the launcher stops a child it started: close its stdin (it exits by itself), then terminate it if it lingers. */
final class ChildStop {

    static void stop(Process process, OutputStream stdin, Duration grace) {
        try {
            stdin.close();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private ChildStop() {
    }
}
