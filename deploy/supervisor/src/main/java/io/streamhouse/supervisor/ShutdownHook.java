package io.streamhouse.supervisor;

/**
 * A JVM shutdown hook that stops one local process, and can hand that job over to an owner that stops several
 * processes in order (JVM shutdown hooks run concurrently, so two of them would race).
 */
public final class ShutdownHook {
    private final Thread thread;

    private ShutdownHook(Thread thread) {
        this.thread = thread;
    }

    public static ShutdownHook register(String name, Runnable stop) {
        ShutdownHook hook = new ShutdownHook(new Thread(stop, name));
        Runtime.getRuntime().addShutdownHook(hook.thread);
        return hook;
    }

    /** Removes the hook; too late once the JVM is shutting down (the hook then runs, so stop must be idempotent). */
    public void release() {
        try {
            Runtime.getRuntime().removeShutdownHook(thread);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook runs (or ran) anyway.
        }
    }

    /** For the stop method itself: removes the hook unless the hook is what is running it. */
    public void releaseUnlessRunning() {
        if (Thread.currentThread() != thread) {
            release();
        }
    }
}
