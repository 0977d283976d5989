package io.streamhouse.launcher;

import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;
import io.streamhouse.security.kafka.KafkaClientSettings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Ingest and the api (instance 1 of each), side by side: each start returns once that app is ready. Before them, the
 * environment every app instance gets: where the platform is, its Kafka login, the access-control key and tokens, the
 * promoted serving id, the query service's URL.
 */
final class AppsStep implements StartStep {

    @Override
    public String name() {
        return "ingest+api";
    }

    @Override
    public java.util.Set<String> needs() {
        return java.util.Set.of("platform");
    }

    @Override
    public String announce(StartContext c) {
        return "Starting ingest and api ...";
    }

    @Override
    public void start(StartContext c, Consumer<String> out) throws Exception {
        prepareEnvironment(c, out);
        RunningStack stack = c.stack;
        CompletableFuture<AppProcess> ingest = startApp("ingest", c.options.home().resolve("ingest/target/quarkus-app/quarkus-run.jar"),
                c.options.ingestPort(), c.env, c.logs(), "384m", stack);
        CompletableFuture<AppProcess> api = startApp("api", c.options.home().resolve("api/target/quarkus-app/quarkus-run.jar"),
                c.options.apiPort(), c.env, c.logs(), "512m", stack);
        CompletableFuture.allOf(ingest, api).exceptionally(e -> null).join();
        stack.ingest = ingest.isCompletedExceptionally() ? null : ingest.join();
        stack.api = api.isCompletedExceptionally() ? null : api.join();
        ingest.join();
        api.join();
        EndpointsFile.write(c.data, stack.platform, stack);
    }

    private static void prepareEnvironment(StartContext c, Consumer<String> out) throws IOException {
        RunningStack stack = c.stack;
        Path data = c.data;
        EndpointsFile.write(data, stack.platform, null);
        Map<String, String> env = c.env;
        env.putAll(Map.of(
                "STREAMHOUSE_KAFKA_BOOTSTRAP_SERVERS", stack.platform.bootstrapServers(),
                "STREAMHOUSE_SCHEMA_REGISTRY_URL", stack.platform.schemaRegistryUrl().toString(),
                "STREAMHOUSE_STATE_DIR", data.resolve(LaunchOptions.apiStateDir(1)).toString(),
                "STREAMHOUSE_CDC_STATE_DIR", data.resolve("ingest-cdc-state").toString()));
        // The apps log in to Kafka as the launcher does, each as its own user.
        env.putAll(KafkaClientSettings.childEnvironment());
        // The api reads the promoted id (./streamhouse replay promote) from this file at each start, restarts included.
        env.put("STREAMHOUSE_STATUS_FILE", data.resolve(io.streamhouse.control.StatusFile.NAME).toString()); // GET /v1/status
        env.put("STREAMHOUSE_RESULTS_DIR", data.resolve(io.streamhouse.control.RunResults.DIR).toString()); // GET /v1/replay/runs
        env.put("STREAMHOUSE_SERVING_APPLICATION_ID_FILE", data.resolve(Launcher.SERVING_ID_FILE).toString());
        Launcher.servingApplicationId(data).ifPresent(id ->
                out.accept("  serving from the promoted application " + id + " (" + data.resolve(Launcher.SERVING_ID_FILE) + ")"));
        if (c.sqlUrl != null) {
            env.put("STREAMHOUSE_LAKE_QUERY_URL", c.sqlUrl.toString());
        }
        // Access control: the key pair stays in the data directory, the apps get the public key; one token per role.
        stack.tokens = StackTokens.issue(data, Instant.now());
        env.put("STREAMHOUSE_JWT_PUBLIC_KEY", StackTokens.publicKey(data).toAbsolutePath().toUri().toString());
        env.put("STREAMHOUSE_INTERNAL_TOKEN_FILE", StackTokens.tokenFile(data, Roles.INTERNAL).toAbsolutePath().toString());
        // The demo, the drills and the benchmarks drive the edges (payments, device), the lookups (ops) and the
        // instances' forwarding (internal) far beyond one real client's rate; the other roles keep the default limit.
        env.put("STREAMHOUSE_RATE_LIMIT_OVERRIDES", Stream.of(Roles.PAYMENTS, Roles.DEVICE, Roles.OPS, Roles.INTERNAL)
                .map(role -> StackTokens.subject(role) + ":100000:200000").collect(Collectors.joining(",")));
        if (c.options.apiInstances() > 1) {
            // A killed instance's keys are answered (stale) from a standby on another, and its tasks move to that warm
            // copy, while the supervisor brings it back: never fewer than one standby of either Streams app.
            for (String variable : List.of("STREAMHOUSE_SERVING_STANDBY_REPLICAS", "STREAMHOUSE_DECISION_STANDBY_REPLICAS")) {
                env.put(variable, Integer.toString(atLeastOne(System.getenv(variable))));
            }
        }
        LaunchOptions.authorizeReplies(c.options.ingestInstances(), System.getenv("STREAMHOUSE_AUTHORIZE_REPLIES")).ifPresent(replies -> {
            env.put("STREAMHOUSE_AUTHORIZE_REPLIES", replies);
            if (replies.equals("partition")) {
                out.accept("  authorize answers: each ingest instance reads its own partition of "
                        + "payments.transactions.decisions.replies");
            }
        });
    }

    /** A standby count from the environment, never below 1 (unset or unreadable: 1). */
    static int atLeastOne(String configured) {
        try {
            return configured == null ? 1 : Math.max(1, Integer.parseInt(configured.trim()));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    private static CompletableFuture<AppProcess> startApp(String name, Path jar, int port, Map<String, String> env, Path logs,
                                                          String heap, RunningStack stack) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return AppProcess.start(name, jar, port, env, logs, heap, stack.supervisor);
            } catch (IOException e) {
                throw new UncheckedIOException(e.getMessage(), e);
            }
        });
    }
}
