package io.streamhouse.supervisor;

import java.time.Duration;

/** What a {@link SupervisedChild} tells its listener; {@link #line()} is the one line the launcher prints. */
public sealed interface SupervisorEvent {

    String component();

    String line();

    /** Ready for the first time, or again after a start request. */
    record Started(String component, long pid, String endpoint, Duration took) implements SupervisorEvent {
        public String line() {
            return component + " ready (pid " + pid + ", " + endpoint + ") in " + took.toMillis() + " ms";
        }
    }

    /** Died unexpectedly; restart number {@code restart} follows after {@code backoff}. */
    record Died(String component, long pid, ExitInfo exit, int restart, int maxRestarts, Duration backoff) implements SupervisorEvent {
        public String line() {
            return component + " (pid " + pid + ") died: " + exit.describe() + "; restart " + restart + " of " + maxRestarts
                    + " in " + backoff.toMillis() + " ms";
        }
    }

    /** A restart after a death failed to become ready; counted as another failure. */
    record RestartFailed(String component, String reason) implements SupervisorEvent {
        public String line() {
            return component + " restart failed: " + reason.lines().findFirst().orElse(reason);
        }
    }

    /** Ready again after a death. */
    record Restarted(String component, long pid, int restarts, Duration took) implements SupervisorEvent {
        public String line() {
            return component + " restarted (pid " + pid + ", restart " + restarts + " in all) and ready in " + took.toMillis() + " ms";
        }
    }

    /** Died and will not be restarted: its policy allows none, or {@code failures} consecutive failures used them up. */
    record GaveUp(String component, ExitInfo exit, int failures) implements SupervisorEvent {
        public String line() {
            return component + " FAILED: " + exit.describe() + (failures > 0 ? " after " + failures + " consecutive restarts; giving up" : "; not restarted")
                    + " (./streamhouse start " + component + " tries again)";
        }
    }

    /** Stopped on purpose. */
    record Stopped(String component, long pid, boolean clean) implements SupervisorEvent {
        public String line() {
            return component + " (pid " + pid + ") stopped" + (clean ? "" : " (forcibly)");
        }
    }

    /** Killed on request ({@code kill -9}); the supervisor restarts it if its policy allows. */
    record Killed(String component, long pid) implements SupervisorEvent {
        public String line() {
            return component + " (pid " + pid + ") killed with SIGKILL on request";
        }
    }
}
