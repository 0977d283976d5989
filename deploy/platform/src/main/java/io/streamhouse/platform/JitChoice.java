package io.streamhouse.platform;

/**
 * Which JIT the long-lived JVMs of a local stack get (the launcher's broker, ingest and api): the full tiered JIT (C2)
 * by default, which sustained about 40 % more authorize throughput and a broker using less CPU under load
 * (docs/benchmarks.md); {@code STREAMHOUSE_APP_JIT=c1} stops them all at C1, a couple of seconds quicker to start on
 * 2 cores. Test platforms always use C1.
 */
public final class JitChoice {
    public static final String ENV = "STREAMHOUSE_APP_JIT";

    /** False when {@value #ENV} is {@code c1}. */
    public static boolean fullJit() {
        return !"c1".equals(System.getenv(ENV));
    }

    private JitChoice() {
    }
}
