package io.streamhouse.platform;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Stand-in for an application JVM: starts a platform (embedded PostgreSQL), prints the PIDs it must not leave behind,
 * then waits to be killed. Used by {@link PlatformOrphanIT}.
 */
public final class PlatformParentMain {
    private PlatformParentMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        EmbeddedPlatform platform = EmbeddedPlatform.start(PlatformOptions.forTests()
                .withDataDir(Path.of(args[0]))
                .withBrokerMaxHeap("256m")
                .withPostgresMode(PlatformOptions.PostgresMode.EMBEDDED));
        StringBuilder line = new StringBuilder("PIDS");
        platform.processes().forEach(p -> line.append(' ').append(p.pid()));
        System.out.println(line);
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
