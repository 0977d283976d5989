package io.streamhouse.platform;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Stand-in for an application JVM: starts a platform and its embedded PostgreSQL (which starts on first use), prints
 * the PIDs it must not leave behind, then waits to be killed. Used by {@link PlatformOrphanIT}.
 */
public final class PlatformParentMain {
    private PlatformParentMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        EmbeddedPlatform platform = EmbeddedPlatform.start(PlatformOptions.forTests()
                .withDataDir(Path.of(args[0]))
                .withBrokerMaxHeap("256m")
                .withPostgresMode(PlatformOptions.PostgresMode.EMBEDDED));
        if (platform.processes().size() != 1) {
            System.err.println("an embedded PostgreSQL starts on first use, not with the platform: " + platform.processes());
            platform.close();
            System.exit(2); // the platform's threads would keep this JVM alive, and the test waiting for its PIDs
        }
        platform.postgres(); // starts it: both children must end with this JVM
        StringBuilder line = new StringBuilder("PIDS");
        platform.processes().forEach(p -> line.append(' ').append(p.pid()));
        System.out.println(line);
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
