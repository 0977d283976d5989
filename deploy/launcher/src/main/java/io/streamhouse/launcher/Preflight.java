package io.streamhouse.launcher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code up} checks before it starts anything, and how a start that failed is told: one line per problem,
 * naming the component and what to do, with no stack trace on the terminal.
 */
final class Preflight {

    /**
     * The fixed ports this start needs (those not given as 0) that something else already listens on: one line each,
     * naming the component and the option that moves it.
     */
    static List<String> portsInUse(LaunchOptions options) {
        Map<Integer, String[]> wanted = new LinkedHashMap<>();
        wanted.put(options.kafkaPort(), new String[]{"the Kafka broker", "--kafka-port"});
        for (int k = 2; k <= options.plan().brokers() && options.kafkaPort() != 0; k++) {
            wanted.put(options.kafkaPort() + k - 1, new String[]{"Kafka broker " + k + " (--kafka-port + " + (k - 1) + ")", "--kafka-port"});
        }
        wanted.put(options.registryPort(), new String[]{"the schema registry", "--registry-port"});
        wanted.put(options.ingestPort(), new String[]{"ingest", "--ingest-port"});
        for (int k = 1; k <= options.apiInstances(); k++) {
            wanted.put(options.apiPort(k), new String[]{LaunchOptions.apiComponent(k), "--api-port"});
        }
        List<String> lines = new ArrayList<>();
        wanted.forEach((port, who) -> {
            if (port != 0 && inUse(port)) {
                lines.add("Port " + port + " (" + who[0] + ") is in use by another process: stop it, or start with "
                        + who[1] + " P (0 picks a free port).");
            }
        });
        return lines;
    }

    /** Whether binding the loopback address on {@code port} fails: a server of someone else's holds it. */
    static boolean inUse(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true); // a port in TIME_WAIT from our own last run is free to use
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * A failed start in one line: the first line of what went wrong, the log that holds the rest instead of the log's
     * tail (a component's start failure carries its last lines), and where the other logs are.
     */
    static String startFailure(Throwable cause, Path logs) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        String first = message.lines().findFirst().orElse("").strip();
        int tail = first.indexOf(" Last lines of ");
        if (tail >= 0) {
            String log = first.substring(tail + " Last lines of ".length()).replaceFirst(":$", "");
            first = first.substring(0, tail).replaceFirst("[.;]$", "") + "; its log: " + log;
        }
        return "Streamhouse failed to start: " + first + " (logs: " + logs + ")";
    }

    private Preflight() {
    }
}
