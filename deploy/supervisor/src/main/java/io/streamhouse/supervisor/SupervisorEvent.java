package io.streamhouse.supervisor;

import io.streamhouse.control.ExitInfo;

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

    /** A start after a death (or on request) did not become ready; restart number {@code restart} follows after {@code backoff}. */
    record RestartFailed(String component, String reason, int restart, int maxRestarts, Duration backoff) implements SupervisorEvent {
        public String line() {
            return component + " did not start: " + reason + "; restart " + restart + " of " + maxRestarts + " in " + backoff.toMillis() + " ms";
        }
    }

    /** Ready again after a death. */
    record Restarted(String component, long pid, int restarts, Duration took) implements SupervisorEvent {
        public String line() {
            return component + " restarted (pid " + pid + ", restart " + restarts + " in all) and ready in " + took.toMillis() + " ms";
        }
    }

    /** Died and will not be restarted: its policy allows none, or {@code restarts} consecutive restarts did not hold. */
    record GaveUp(String component, String lastFailure, int restarts) implements SupervisorEvent {
        public String line() {
            return component + " FAILED: " + lastFailure + (restarts > 0 ? " after " + restarts + " consecutive restarts; giving up" : "; not restarted");
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
