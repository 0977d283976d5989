package io.streamhouse.supervisor;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The children of one owner (the launcher, a test platform), by component name, with one restart policy and one
 * listener for their events. The launcher prints each event as a line and rewrites the status file from
 * {@link #statuses()}; drills find a component with {@link #child(String)} and kill or restart it. Thread-safe.
 */
public final class Supervisor {
    private static final System.Logger LOG = System.getLogger(Supervisor.class.getName());

    private final RestartPolicy policy;
    private final Consumer<SupervisorEvent> listener;
    private final Map<String, SupervisedChild> children = new LinkedHashMap<>();
    private volatile Runnable onStateChange = () -> { };

    public Supervisor(RestartPolicy policy, Consumer<SupervisorEvent> listener) {
        this.policy = policy;
        this.listener = listener;
    }

    /** Children that are not restarted, whose events are only logged: what tests and ephemeral platforms get. */
    public static Supervisor unsupervised() {
        return new Supervisor(RestartPolicy.NEVER, e -> LOG.log(Level.INFO, e.line()));
    }

    /** Runs after every state change of any child (the launcher rewrites its status file); must not block long. */
    public void onStateChange(Runnable action) {
        this.onStateChange = action;
    }

    public RestartPolicy policy() {
        return policy;
    }

    /**
     * Registers a child under {@code spec.name()} (replacing a stopped one of that name) and starts it; returns once
     * it is ready. On failure the child stays registered as {@link ChildState#FAILED} and the exception says why.
     */
    public SupervisedChild start(ChildSpec spec) {
        SupervisedChild child = new SupervisedChild(spec, policy, this);
        synchronized (this) {
            children.put(spec.name(), child);
        }
        stateChanged();
        child.start();
        return child;
    }

    public synchronized Optional<SupervisedChild> child(String name) {
        return Optional.ofNullable(children.get(name));
    }

    public synchronized List<String> names() {
        return List.copyOf(children.keySet());
    }

    /** Every registered child's status, in registration (start) order. */
    public synchronized List<ChildStatus> statuses() {
        List<ChildStatus> all = new ArrayList<>();
        children.values().forEach(c -> all.add(c.status()));
        return all;
    }

    void stateChanged() {
        try {
            onStateChange.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "supervisor state listener failed", e);
        }
    }

    /** Called by a child for each event. */
    void publish(SupervisedChild child, SupervisorEvent event) {
        try {
            listener.accept(event);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "supervisor listener failed on " + event, e);
        }
    }
}
