package io.streamhouse.supervisor;

import java.io.InputStream;
import java.util.List;

/**
 * A tiny child JVM for the supervisor's tests. Prints {@value #READY}{@code <pid>} once started, then lives until
 * its stdin closes (like every Streamhouse child). Options: {@code --exit-after-ms N --exit-code C} dies by itself
 * after N ms; {@code --fail-before-ready C} writes an error to stderr and exits with C before the ready line;
 * {@code --ignore-stdin} does not stop on end-of-file (so a stop must escalate); {@code --grandchild} starts a
 * {@code sleep} that only a supervisor's stop ends; {@code --ready-once FILE} is ready only on its first start
 * (it creates FILE) and never again.
 */
public final class TestChild {
    static final String READY = "TEST-CHILD-READY ";

    public static void main(String[] args) throws Exception {
        List<String> a = List.of(args);
        if (a.contains("--fail-before-ready")) {
            System.err.println("test child: cannot bind its port (planted failure)");
            System.exit(Integer.parseInt(a.get(a.indexOf("--fail-before-ready") + 1)));
        }
        if (a.contains("--grandchild")) {
            new ProcessBuilder("sleep", "300").start();
        }
        if (a.contains("--ready-once")) {
            java.nio.file.Path marker = java.nio.file.Path.of(a.get(a.indexOf("--ready-once") + 1));
            if (java.nio.file.Files.exists(marker)) {
                // Never ready; bounded in case nobody stops it.
                new java.util.concurrent.CountDownLatch(1).await(5, java.util.concurrent.TimeUnit.MINUTES);
                return;
            }
            java.nio.file.Files.createFile(marker);
        }
        System.out.println(READY + ProcessHandle.current().pid());
        System.out.flush();
        if (a.contains("--exit-after-ms")) {
            long ms = Long.parseLong(a.get(a.indexOf("--exit-after-ms") + 1));
            int code = Integer.parseInt(a.get(a.indexOf("--exit-code") + 1));
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "dier");
                t.setDaemon(true);
                return t;
            }).schedule(() -> System.exit(code), ms, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        if (a.contains("--ignore-stdin")) {
            // Lives until signalled; bounded in case nobody does.
            new java.util.concurrent.CountDownLatch(1).await(5, java.util.concurrent.TimeUnit.MINUTES);
            return;
        }
        try (InputStream in = System.in) {
            while (in.read() >= 0) {
                // nothing is ever written
            }
        }
        System.exit(0);
    }

    private TestChild() {
    }
}
