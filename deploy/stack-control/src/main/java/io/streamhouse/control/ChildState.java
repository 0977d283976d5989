package io.streamhouse.control;

/** Where a supervised child is in its life. */
public enum ChildState {
    /** First start, not ready yet. */
    STARTING,
    /** Ready and alive. */
    RUNNING,
    /** Died (or was killed); waiting out its backoff or starting again. */
    RESTARTING,
    /** Stopped on purpose (shutdown, or a stop request); not restarted. */
    STOPPED,
    /** Died and is not restarted: its policy allows no restart, or it kept dying and was given up. */
    FAILED;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
