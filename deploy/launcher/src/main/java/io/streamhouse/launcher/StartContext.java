package io.streamhouse.launcher;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** What the start steps share: the options, the stack as far as it is started, and the apps' environment. */
final class StartContext {
    final LaunchOptions options;
    final Path data;
    final Instant began;
    final RunningStack stack;
    /** The environment every app instance starts with (the apps step fills it). */
    final Map<String, String> env = new HashMap<>();
    /** The query service's URL, fixed before the apps start so the api knows it; null without {@code sql}. */
    URI sqlUrl;

    StartContext(LaunchOptions options, Instant began, RunningStack stack) {
        this.options = options;
        this.data = options.data();
        this.began = began;
        this.stack = stack;
    }

    /** Seconds since {@code up} began, as the start lines print them. */
    double seconds() {
        return Duration.between(began, Instant.now()).toMillis() / 1000.0;
    }

    Path logs() {
        return data.resolve("logs");
    }
}
