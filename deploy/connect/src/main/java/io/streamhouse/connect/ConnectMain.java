package io.streamhouse.connect;

import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Entry point of the Kafka Connect child JVM: one distributed-mode worker (ConnectDistributed) with the worker
 * properties from {@code --config <file>}. Only {@link ConnectProcess} is meant to start it.
 *
 * <p>Guarantees, as for the broker child: exactly one line goes to stdout, {@value #READY_PREFIX}{@code <rest url>},
 * once the REST server is up; everything else (Connect's and Debezium's logs at WARN, notes) goes to
 * {@code <data-dir>/connect.log}. The JVM ends when stdin reaches end-of-file (the parent closed it or died, even by
 * {@code kill -9}): Connect is stopped (tasks stopped, producers closed) within {@link #SHUTDOWN_GRACE}, then the JVM
 * halts.
 */
public final class ConnectMain {

    public static final String READY_PREFIX = "STREAMHOUSE-CONNECT-READY ";
    public static final String LOG_FILE = "connect.log";
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(15);

    private static PrintStream log;
    private static volatile Connect<?> connect;

    private ConnectMain() {
    }

    public static void main(String[] args) throws Exception {
        Path config = null;
        Path dataDir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--config" -> config = Path.of(args[++i]);
                case "--data-dir" -> dataDir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (config == null || dataDir == null) {
            throw new IllegalArgumentException("--config and --data-dir are required");
        }
        PrintStream readyOut = System.out;
        log = new PrintStream(new FileOutputStream(dataDir.resolve(LOG_FILE).toFile(), true), true, StandardCharsets.UTF_8);
        System.setOut(log);
        System.setErr(log);
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSS");
        watchStdin(System.in);

        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(config)) {
            props.load(in);
        }
        Map<String, String> workerProps = new HashMap<>();
        props.stringPropertyNames().forEach(k -> workerProps.put(k, props.getProperty(k)));
        try {
            long t0 = System.nanoTime();
            Connect<?> started = new ConnectDistributed().startConnect(workerProps);
            connect = started;
            String url = started.rest().advertisedUrl().toString();
            note("worker ready at " + url + " after " + Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
            readyOut.println(READY_PREFIX + url);
            readyOut.flush();
            started.awaitStop();
        } catch (Throwable e) {
            note("start failed: " + e);
            e.printStackTrace(log);
            Runtime.getRuntime().halt(1);
        }
        Runtime.getRuntime().halt(0);
    }

    private static void watchStdin(InputStream in) {
        Thread watcher = new Thread(() -> {
            byte[] buffer = new byte[256];
            try {
                while (in.read(buffer) != -1) {
                    // only end-of-file matters
                }
            } catch (IOException e) {
                note("stdin failed (" + e + "); treating it as end-of-file");
            }
            note("stdin reached end-of-file: the parent closed it or died; stopping Connect");
            Thread guard = new Thread(() -> {
                try {
                    Thread.sleep(SHUTDOWN_GRACE.toMillis()); // a deadline, not a wait for a condition
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
                note("Connect did not stop within " + SHUTDOWN_GRACE + "; halting");
                Runtime.getRuntime().halt(2);
            }, "streamhouse-connect-shutdown-guard");
            guard.setDaemon(true);
            guard.start();
            Connect<?> c = connect;
            if (c != null) {
                c.stop();
            }
            note("Connect stopped");
            Runtime.getRuntime().halt(0);
        }, "streamhouse-connect-stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static void note(String message) {
        PrintStream out = log != null ? log : System.err;
        out.println(Instant.now() + " [streamhouse-connect] " + message);
    }
}
