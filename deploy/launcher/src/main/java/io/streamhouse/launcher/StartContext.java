package io.streamhouse.launcher;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** What the start steps share: the options, the stack as far as it is started, and the apps' environment. */
final class StartContext {
    final LaunchOptions options;
    final Path data;
    final Instant began;
    final RunningStack stack;
    /** The environment every app instance starts with (the apps step fills it). */
    final Map<String, String> env = new java.util.concurrent.ConcurrentHashMap<>();
    /** The query service's URL, fixed before anything starts so the api knows it; null without {@code sql}. */
    final URI sqlUrl;

    StartContext(LaunchOptions options, Instant began, RunningStack stack) throws IOException {
        this.options = options;
        this.data = options.data();
        this.began = began;
        this.stack = stack;
        this.sqlUrl = options.runs(LaunchOptions.Part.SQL) ? URI.create("http://127.0.0.1:" + freePort()) : null;
    }

    private static int freePort() throws IOException {
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Seconds since {@code up} began, as the start lines print them. */
    double seconds() {
        return Duration.between(began, Instant.now()).toMillis() / 1000.0;
    }

    Path logs() {
        return data.resolve("logs");
    }
}
