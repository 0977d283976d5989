package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.lakequery.LakeQueryOptions;
import io.streamhouse.loadtests.demo.DemoFleet;
import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;
import io.streamhouse.loadtests.demo.DemoLoad;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.ControlChannel;
import io.streamhouse.supervisor.RestartPolicy;
import io.streamhouse.control.StatusFile;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.Supervisor;
import io.streamhouse.supervisor.SupervisorEvent;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./streamhouse up | down | status | kill | restart | stop | start}.
 * <p>{@code up} starts the platform (broker child JVM, PostgreSQL, schema registry in this JVM), creates the
 * catalog's topics, starts ingest and api as child JVMs, runs the demo load and prints where everything is; it
 * then runs until Ctrl-C or {@code ./streamhouse down}. Data lives under {@code .streamhouse/} and survives
 * restarts. Every child exits with this process (the broker and the apps watch their stdin), so nothing is left
 * behind even if this JVM is killed. Every child JVM runs under one {@link Supervisor}: a death is printed as one
 * line and restarted with backoff, {@code <data>/status.json} follows every change, and {@code <data>/control/}
 * takes the kill/restart/stop/start requests of the other commands.
 */
public final class Launcher {
    private static final PrintStream OUT = System.out;

    public static void main(String[] args) throws Exception {
        LaunchOptions options;
        try {
            options = LaunchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(LaunchOptions.USAGE);
            System.exit(2);
            return;
        }
        int code = switch (options.command()) {
            case "up" -> up(options);
            case "down" -> down(options);
            case "status" -> status(options);
            case "kill", "restart", "stop", "start" -> control(options);
            default -> {
                System.err.println(LaunchOptions.USAGE);
                yield 2;
            }
        };
        System.exit(code);
    }

    static int up(LaunchOptions options) throws Exception {
        return up(options, null);
    }

    /** What the demo left, handed to a check that runs against the still running stack (tests). */
    record Demoed(java.net.URI api, DemoLoad.Result decisions, Optional<String> cdcCustomer) {
    }

    /** A check against the running stack once every demo leg passed, before {@code --exit-after-demo} stops it. */
    @FunctionalInterface
    interface AfterDemo {
        void check(Demoed demoed) throws Exception;
    }

    /** {@code afterDemo} (may be null) runs once the demo passed; what it throws ends {@code up} after the stack stops. */
    static int up(LaunchOptions options, AfterDemo afterDemo) throws Exception {
        Instant began = Instant.now();
        Path data = options.data();
        Files.createDirectories(data);
        Optional<Long> running = PidFile.running(data);
        if (running.isPresent()) {
            System.err.println("Streamhouse is already running (pid " + running.get() + "): ./streamhouse down first");
            return 1;
        }
        if (options.fresh()) {
            OUT.println("Starting fresh: removing the topics, database and state in " + data);
            for (String dir : new String[]{"platform", "api-state", "ingest-cdc-state", "cep", "replay", "lake-query", "lake"}) {
                io.streamhouse.supervisor.LocalFiles.deleteRecursively(data.resolve(dir));
            }
            // Every instance's, also those an earlier run with more --api-instances left.
            for (int k = 2; k <= LaunchOptions.MAX_API_INSTANCES; k++) {
                io.streamhouse.supervisor.LocalFiles.deleteRecursively(data.resolve(LaunchOptions.apiStateDir(k)));
            }
            for (int k = 2; k <= LaunchOptions.MAX_INGEST_INSTANCES; k++) {
                io.streamhouse.supervisor.LocalFiles.deleteRecursively(data.resolve(LaunchOptions.ingestCdcStateDir(k)));
            }
            // A promoted shadow's topics went with the broker's data: serve under the default id again.
            Files.deleteIfExists(data.resolve(SERVING_ID_FILE));
        }
        PidFile.write(data, ProcessHandle.current().pid());
        Stack stack = new Stack();
        // Start-up prints its own lines; from then on every supervisor event is a line of its own.
        stack.supervisor = new Supervisor(RestartPolicy.LAUNCHER, event -> {
            if (stack.ready || !(event instanceof SupervisorEvent.Started || event instanceof SupervisorEvent.Stopped)) {
                OUT.println("  [supervisor] " + event.line()
                        + (event instanceof SupervisorEvent.GaveUp ? " (./streamhouse start " + event.component() + " tries again)" : ""));
            }
        });
        stack.supervisor.onStateChange(() -> writeStatus(data, stack));
        stack.control = ControlChannel.serve(data.resolve(ControlChannel.DIR), request -> control(stack, request));
        CountDownLatch stopped = new CountDownLatch(1);
        Files.deleteIfExists(purgeMarker(data));
        Thread hook = new Thread(() -> {
            OUT.println("Stopping Streamhouse ...");
            purgeIfAsked(stack, data);
            stack.close();
            PidFile.delete(data);
            OUT.println("Stopped.");
            stopped.countDown();
        }, "streamhouse-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            // Every Kafka client of the stack logs in with its own SCRAM user (KafkaPrincipal) and may do only what its
            // ACLs allow (docs/kafka-security.md), unless STREAMHOUSE_KAFKA_SECURITY_PROTOCOL says otherwise.
            stack.kafkaSettings = io.streamhouse.security.kafka.KafkaClientSettings.useSaslUnlessConfigured(
                    io.streamhouse.platform.PlatformOptions.kafkaCredentialsDir(data.resolve("platform")));
            OUT.println("Starting the platform (Kafka broker, PostgreSQL, schema registry) ...");
            stack.platform = EmbeddedPlatform.start(options.platformOptions(data.resolve("platform")), stack.supervisor);
            OUT.printf("  Kafka %s, schema registry %s, PostgreSQL %s (%.1f s)%n", stack.platform.bootstrapServers(),
                    stack.platform.schemaRegistryUrl(), stack.platform.postgres().jdbcUrl(), seconds(began));
            if (stack.platform.kafkaSecured()) {
                OUT.println("  Kafka takes SASL/SCRAM-SHA-512 logins only, one user per service, each limited by ACLs; a client"
                        + " of your own logs in with");
                OUT.println("    " + io.streamhouse.security.kafka.KafkaClientSettings.childEnvironment().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(" ")));
                OUT.println("    and one of the users in that directory (docs/kafka-security.md)");
            } else {
                OUT.println("  Kafka without authentication (STREAMHOUSE_KAFKA_SECURITY_PROTOCOL=PLAINTEXT)");
            }

            if (options.runs(LaunchOptions.Part.CDC)) {
                OUT.println("Starting change data capture (Kafka Connect worker, Debezium PostgreSQL connector) ...");
                var connect = stack.platform.cdc();
                OUT.printf("  Kafka Connect %s, connector %s capturing schema shop into shop.cdc.changes (%.1f s)%n",
                        connect.restUrl(), io.streamhouse.connect.CdcConnector.DEFAULT_NAME, seconds(began));
            } else {
                OUT.println("Not starting change data capture (--without cdc): nothing captures the shop database.");
            }

            writeEndpoints(data, stack.platform, null);
            Map<String, String> env = new java.util.HashMap<>(Map.of(
                    "STREAMHOUSE_KAFKA_BOOTSTRAP_SERVERS", stack.platform.bootstrapServers(),
                    "STREAMHOUSE_SCHEMA_REGISTRY_URL", stack.platform.schemaRegistryUrl().toString(),
                    "STREAMHOUSE_STATE_DIR", data.resolve(LaunchOptions.apiStateDir(1)).toString(),
                    "STREAMHOUSE_CDC_STATE_DIR", data.resolve("ingest-cdc-state").toString()));
            // The apps log in to Kafka as the launcher does, each as its own user.
            env.putAll(io.streamhouse.security.kafka.KafkaClientSettings.childEnvironment());
            // The api reads the promoted id (./streamhouse replay promote) from this file at each start, restarts included.
            env.put("STREAMHOUSE_SERVING_APPLICATION_ID_FILE", data.resolve(SERVING_ID_FILE).toString());
            servingApplicationId(data).ifPresent(id ->
                    OUT.println("  serving from the promoted application " + id + " (" + data.resolve(SERVING_ID_FILE) + ")"));
            java.net.URI sqlUrl = null;
            if (options.runs(LaunchOptions.Part.SQL)) {
                // Its port is fixed now so the api knows the URL; it is started once the apps are ready.
                sqlUrl = java.net.URI.create("http://127.0.0.1:" + freePort());
                env.put("STREAMHOUSE_LAKE_QUERY_URL", sqlUrl.toString());
            }
            // Access control: the key pair stays in the data directory, the apps get the public key; one token per role.
            stack.tokens = StackTokens.issue(data, Instant.now());
            env.put("STREAMHOUSE_JWT_PUBLIC_KEY", StackTokens.publicKey(data).toAbsolutePath().toUri().toString());
            env.put("STREAMHOUSE_INTERNAL_TOKEN_FILE", StackTokens.tokenFile(data, Roles.INTERNAL).toAbsolutePath().toString());
            // The demo, the drills and the benchmarks drive the edges (payments, device), the lookups (ops) and the
            // instances' forwarding (internal) far beyond one real client's rate; the other roles keep the default limit.
            env.put("STREAMHOUSE_RATE_LIMIT_OVERRIDES", java.util.stream.Stream.of(Roles.PAYMENTS, Roles.DEVICE, Roles.OPS, Roles.INTERNAL)
                    .map(role -> StackTokens.subject(role) + ":100000:200000").collect(java.util.stream.Collectors.joining(",")));
            if (options.apiInstances() > 1) {
                // A killed instance's keys are answered (stale) from a standby on another, and its tasks move to that warm
                // copy, while the supervisor brings it back: never fewer than one standby of either Streams app.
                for (String variable : List.of("STREAMHOUSE_SERVING_STANDBY_REPLICAS", "STREAMHOUSE_DECISION_STANDBY_REPLICAS")) {
                    env.put(variable, Integer.toString(atLeastOne(System.getenv(variable))));
                }
            }
            String configuredReplies = System.getenv("STREAMHOUSE_AUTHORIZE_REPLIES");
            LaunchOptions.authorizeReplies(options.ingestInstances(), configuredReplies).ifPresent(replies -> {
                env.put("STREAMHOUSE_AUTHORIZE_REPLIES", replies);
                if (replies.equals("partition")) {
                    OUT.println("  authorize answers: each ingest instance reads its own partition of "
                            + "payments.transactions.decisions.replies");
                }
            });
            OUT.println("Starting ingest and api ...");
            // Side by side, as before the supervisor: each start returns once that app is ready.
            CompletableFuture<AppProcess> ingest = startApp("ingest", options.home().resolve("ingest/target/quarkus-app/quarkus-run.jar"),
                    options.ingestPort(), env, data.resolve("logs"), "384m", stack.supervisor);
            CompletableFuture<AppProcess> api = startApp("api", options.home().resolve("api/target/quarkus-app/quarkus-run.jar"),
                    options.apiPort(), env, data.resolve("logs"), "512m", stack.supervisor);
            CompletableFuture.allOf(ingest, api).exceptionally(e -> null).join();
            stack.ingest = ingest.isCompletedExceptionally() ? null : ingest.join();
            stack.api = api.isCompletedExceptionally() ? null : api.join();
            ingest.join();
            api.join();
            if (options.apiInstances() > 1) {
                OUT.printf("Starting %d more api instance(s): each its own port, state directory and static member id ...%n",
                        options.apiInstances() - 1);
            }
            for (int k = 2; k <= options.apiInstances(); k++) {
                // One after another, after the first: each join moves partitions, and on 2 cores a parallel start only slows both.
                stack.apiInstances.add(startInstance(options, stack, env, "api", k, options.apiPort(k), "512m", began,
                        Map.of("STREAMHOUSE_STATE_DIR", data.resolve(LaunchOptions.apiStateDir(k)).toString())));
            }
            if (options.ingestInstances() > 1) {
                OUT.printf("Starting %d more ingest instance(s): each its own port, CDC normaliser state and MQTT client id ...%n",
                        options.ingestInstances() - 1);
            }
            for (int k = 2; k <= options.ingestInstances(); k++) {
                // Stateless on the request path: any instance takes any request and waits for its decision itself, on
                // its own reply partition (k-1) when they read their own replies. The MQTT client id is the host name by
                // default: two instances on one host would take each other's session.
                stack.ingestInstances.add(startInstance(options, stack, env, "ingest", k, 0, "384m", began, Map.of(
                        "STREAMHOUSE_CDC_STATE_DIR", data.resolve(LaunchOptions.ingestCdcStateDir(k)).toString(),
                        "STREAMHOUSE_MQTT_INSTANCE_ID", hostName() + "-" + LaunchOptions.ingestComponent(k),
                        "STREAMHOUSE_AUTHORIZE_REPLY_PARTITION", Integer.toString(LaunchOptions.ingestReplyPartition(k)))));
            }
            writeEndpoints(data, stack.platform, stack);
            // After the apps: its MiniCluster start is CPU-heavy, and the apps are what answers first.
            if (options.runs(LaunchOptions.Part.CEP)) {
                OUT.println("Starting the CEP job (Flink) ...");
                stack.cep = CepProcess.start(options.home(), stack.platform.bootstrapServers(),
                        stack.platform.schemaRegistryUrl().toString(), data.resolve("cep"), data.resolve("logs"), stack.supervisor);
            } else {
                OUT.println("Not starting the CEP job (--without cep): no alerts on alerts.fraud, alerts.parcels, alerts.maintenance.");
            }
            // Late: the table JVM and the sink's first commits cost CPU that the apps' and the job's start need more.
            if (options.runs(LaunchOptions.Part.LAKE)) {
                OUT.println("Starting the lake (Iceberg tables, Iceberg Kafka Connect sink) ...");
                var connect = stack.platform.lake();
                OUT.printf("  connector %s landing %d topics in Iceberg tables streamhouse.* (catalog lake, warehouse %s), commits every %d ms (%.1f s)%n",
                        io.streamhouse.connect.LakeConnector.NAME, io.streamhouse.domain.topic.LakeNames.landed().size(),
                        stack.platform.lakeWarehouse(), io.streamhouse.connect.LakeConnector.COMMIT_INTERVAL_MS, seconds(began));
            } else {
                // The worker keeps its connectors in its config topic: one registered by an earlier run would resume.
                boolean removed = stack.platform.stopLake();
                OUT.println("Not starting the lake (--without lake): nothing lands in Iceberg"
                        + (removed ? " (the connector an earlier run registered was removed)." : "."));
            }

            // Then the query service: the apps answer without it (POST /v1/sql is a 503 until it is up), and its start is CPU-heavy.
            if (sqlUrl != null) {
                OUT.println("Starting the lake's query service (Flink batch SQL over Iceberg and the log) ...");
                // The catalog the sink writes, from the one place that builds it.
                Map<String, String> catalog = stack.platform.lakeCatalog();
                var lake = new LakeQueryOptions.Lake(catalog.get("uri"), catalog.get("jdbc.user"), catalog.get("jdbc.password"),
                        catalog.get("warehouse"));
                stack.sql = SqlProcess.start(new LakeQueryOptions(data.resolve("lake-query"), stack.platform.bootstrapServers(),
                        stack.platform.schemaRegistryUrl().toString(), Optional.of(lake), sqlUrl.getPort(), "768m", 2,
                        options.maintenance().withEnabled(options.maintenance().enabled() && options.runs(LaunchOptions.Part.LAKE))),
                        data.resolve("logs"), stack.supervisor);
                Duration took = stack.sql.startDuration();
                OUT.printf("  query service pid %d ready in %.1f s%n", stack.sql.pid(), took.toMillis() / 1000.0);
                var m = options.maintenance();
                OUT.println(m.enabled() && options.runs(LaunchOptions.Part.LAKE)
                        ? "  lake maintenance every " + m.interval() + ": compaction to " + m.targetFileSizeBytes() / (1024 * 1024)
                        + " MiB files, snapshots older than " + m.snapshotMaxAge() + " expired (newest " + m.retainLast()
                        + " kept), orphan files older than " + m.orphanMinAge() + " deleted (./streamhouse status shows the last pass)"
                        : "  lake maintenance off" + (m.enabled() ? " (--without lake)" : " (--maintenance off)"));
            } else {
                OUT.println("Not starting the lake's query service (--without sql): POST /v1/sql answers 503.");
            }
            stack.ready = true;
            // From now on, what runs inside the cep and connect processes is looked at too (status.json, [health] lines).
            String bootstrap = stack.platform.bootstrapServers();
            stack.health = new HealthWatch(stack.supervisor, stack.cep == null ? null : () -> org.apache.kafka.clients.admin.Admin.create(
                    io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(io.streamhouse.security.kafka.KafkaPrincipal.PLATFORM)
                            .admin(bootstrap, Map.of("request.timeout.ms", "4000", "default.api.timeout.ms", "5000"))),
                    line -> OUT.println("  [health] " + line), () -> writeStatus(data, stack)).start();
            OUT.printf("Streamhouse is ready in %.1f s%n", seconds(began));
            printUrls(stack, data);

            boolean demoOk = true;
            if (options.demoCount() > 0) {
                demoOk = demo(stack, options);
                if (options.runs(LaunchOptions.Part.CDC)) {
                    demoOk &= cdcDemo(stack);
                }
                if (stack.sql != null) {
                    demoOk &= sqlDemo(stack);
                }
                if (demoOk && afterDemo != null) {
                    afterDemo.check(new Demoed(stack.api.url(), stack.demoDecisions, Optional.ofNullable(stack.cdcCustomer)));
                }
            }
            if (options.exitAfterDemo()) {
                return demoOk ? 0 : 1;
            }
            OUT.println();
            OUT.println("Running. Ctrl-C or ./streamhouse down stops everything; ./streamhouse status shows each component.");
            stopped.await();
            return 0;
        } catch (Exception e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            System.err.println("Streamhouse failed to start: " + cause.getMessage());
            System.err.println("Logs: " + data.resolve("logs"));
            return 1;
        } finally {
            if (stopped.getCount() > 0) {
                // Not stopped by a signal: stop here (exit-after-demo, or a failure) and drop the now useless hook.
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                    purgeIfAsked(stack, data);
                    stack.close();
                    PidFile.delete(data);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is already running and will stop everything
                }
            }
        }
    }

    private static boolean demo(Stack stack, LaunchOptions options) throws IOException, InterruptedException {
        OUT.printf("Demo load: %d card payments (seed %d) authorized synchronously through ingest, decisions read back from the api ...%n",
                options.demoCount(), options.seed());
        DemoLoad.Result result = DemoLoad.run(stack.ingest.url(), stack.api.url(), options.seed(), options.demoCount(),
                Instant.now().minusSeconds(60), Duration.ofSeconds(60), stack.tokens.get(Roles.PAYMENTS));
        stack.demoDecisions = result;
        OUT.printf("  %d sent, decisions %s in %.1f s%n", result.sent(), result.outcomes(), result.elapsed().toMillis() / 1000.0);
        var sorted = result.authorizeMillis().stream().sorted().toList();
        if (!sorted.isEmpty()) {
            OUT.printf("  authorize round trip as the demo client saw it: median %d ms, max %d ms (one sequential client; not a benchmark)%n",
                    sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
        }
        if (result.example() != null) {
            OUT.println("  Example decision: " + new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(result.example())
                    .replace("\n", "\n  "));
        }
        if (!result.allAsExpected()) {
            OUT.println("  Decisions that differ from the demo's ground truth: " + result.mismatches());
            return false;
        }
        OUT.println("  Every answer matched the demo's ground truth and the decision the api recorded.");
        OUT.println("Demo fleet: truck-7 reports its position, parcel P-1042 goes out for delivery on it ...");
        var parcel = DemoFleet.run(stack.ingest.url(), stack.api.url(), Instant.now().minusSeconds(60), Duration.ofSeconds(60),
                stack.tokens.get(Roles.DEVICE), stack.tokens.get(Roles.OPS));
        if (parcel == null) {
            OUT.println("  The api did not show parcel P-1042 out for delivery within 60 s.");
            return false;
        }
        OUT.println("  Parcel as the api answers it: " + new ObjectMapper().writeValueAsString(parcel));
        return true;
    }

    private static boolean cdcDemo(Stack stack) throws Exception {
        OUT.println("Change data capture: one order written to the shop database, awaited on shop.orders ...");
        CdcDemo.Result r = CdcDemo.run(stack.platform, Duration.ofSeconds(60));
        stack.cdcCustomer = r.customerId();
        if (!r.arrived()) {
            OUT.println("  Order " + r.orderId() + " did not arrive as OrderPlaced within " + r.took().toSeconds()
                    + " s: see logs/ingest.log and platform/connect/connect.log");
            return false;
        }
        OUT.printf("  %s placed, total EUR %s, on shop.orders %d ms after the commit (one order; not a benchmark)%n",
                r.orderId(), r.total().toPlainString(), r.took().toMillis());
        return true;
    }

    /** One snapshot query through the api: decisions per outcome over the log, as the demo left it. */
    private static boolean sqlDemo(Stack stack) throws IOException, InterruptedException {
        String sql = "SELECT outcome, COUNT(*) AS decisions FROM kafka.streamhouse.payments_transactions_decisions GROUP BY outcome";
        OUT.println("Snapshot SQL through the api: " + sql + " ...");
        var mapper = new ObjectMapper();
        var request = java.net.http.HttpRequest.newBuilder(stack.api.url().resolve("/v1/sql"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + stack.tokens.get(Roles.ANALYST))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(mapper.createObjectNode().put("sql", sql).toString())).build();
        long t0 = System.nanoTime();
        var response = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (response.statusCode() != 200) {
            OUT.println("  The api answered " + response.statusCode() + ": " + response.body());
            return false;
        }
        var body = mapper.readTree(response.body());
        OUT.println("  rows " + body.get("rows") + ", read at end offsets " + body.get("readAt").get("kafka").findValuesAsText("endOffset")
                + " of its partitions, in " + ms + " ms (one query; not a benchmark)");
        return true;
    }

    /** A standby count from the environment, never below 1 (unset or unreadable: 1). */
    static int atLeastOne(String configured) {
        try {
            return configured == null ? 1 : Math.max(1, Integer.parseInt(configured.trim()));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    private static int freePort() throws IOException {
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void printUrls(Stack stack, Path data) {
        OUT.println("  ingest          " + stack.ingest.url() + "  (POST /v1/transactions, /v1/transactions/authorize, /v1/telemetry, /v1/parcels/{id}/scans)");
        OUT.println("  api             " + stack.api.url() + "  (GET /v1/transactions/{id}/decision, /v1/transactions/{id}/explanation, /v1/rules,");
        OUT.println("                  /v1/parcels/{id}, /v1/customers/{id}, /v1/vehicles/{id} [?asOf=], /v1/alerts, /v1/alerts/stream, /q/openapi, /q/metrics)");
        for (int k = 2; k <= stack.ingestInstances.size() + 1; k++) {
            OUT.printf("  %-15s %s  (the same ingest: any instance takes any request; ./streamhouse kill|stop|start|restart %s)%n",
                    LaunchOptions.ingestComponent(k), stack.ingestInstances.get(k - 2).url(), LaunchOptions.ingestComponent(k));
        }
        for (int k = 2; k <= stack.apiInstances.size() + 1; k++) {
            OUT.printf("  %-15s %s  (the same api: any instance answers any key; ./streamhouse kill|stop|start|restart %s)%n",
                    LaunchOptions.apiComponent(k), stack.apiInstances.get(k - 2).url(), LaunchOptions.apiComponent(k));
        }
        OUT.println("  mcp (agents)    " + stack.api.url().resolve("/mcp") + "  (MCP streamable HTTP; SSE at /mcp/sse)");
        if (stack.sql != null) {
            OUT.println("  snapshot SQL    POST " + stack.api.url().resolve("/v1/sql") + "  (lake.streamhouse.*, kafka.streamhouse.*; query service pid "
                    + stack.sql.pid() + " on " + stack.sql.url() + ")");
        }
        OUT.println("  schema registry " + stack.platform.schemaRegistryUrl() + "  (GET /subjects)");
        OUT.println("  kafka           " + stack.platform.bootstrapServers());
        if (stack.cep != null) {
            OUT.println("  CEP job         Flink MiniCluster in a child JVM (pid " + stack.cep.pid() + "), alerts on alerts.fraud, alerts.parcels, alerts.maintenance");
        }
        stack.platform.connectWorker().ifPresent(worker -> OUT.println("  kafka connect   " + worker.restUrl() + "  (GET "
                + (stack.platform.cdcSource().isPresent() ? "/connectors/shop-cdc/status, " : "")
                + "/connectors/lake/status)"));
        OUT.println("  health          " + stack.api.url().resolve("/q/health/ready") + "  (liveness and readiness open; the rest of /q needs ops)");
        OUT.println("  logs            " + data.resolve("logs"));
        OUT.println("Development tokens (valid " + StackTokens.LIFETIME.toDays() + " days; one per role, also in "
                + data.resolve("tokens") + "; docs/security.md says which role may call what):");
        stack.tokens.forEach((role, token) -> OUT.printf("  %-12s %s%n", role, token));
        OUT.println("Try:");
        OUT.println("  PAYMENTS=$(cat " + StackTokens.tokenFile(data, Roles.PAYMENTS) + ")");
        OUT.println("  curl -s -XPOST " + stack.ingest.url() + "/v1/transactions/authorize -H \"Authorization: Bearer $PAYMENTS\" -H 'Content-Type: application/json' -d '"
                + "{\"transactionId\":\"tx-1\",\"occurredAt\":\"" + Instant.now().toString().substring(0, 19) + "Z\","
                + "\"card\":{\"number\":\"4111111111111111\"},\"merchant\":{\"id\":\"m-1\",\"name\":\"Shop\",\"mcc\":\"5411\",\"country\":\"NL\"},"
                + "\"amount\":\"1500.00\",\"currency\":\"EUR\",\"channel\":\"ECOMMERCE\"}'");
        OUT.println("  curl -s " + stack.api.url() + "/v1/transactions/tx-1/explanation -H \"Authorization: Bearer $PAYMENTS\"");
        OUT.println("  curl -s " + stack.api.url() + "/v1/parcels/P-1042 -H \"Authorization: Bearer $(cat " + StackTokens.tokenFile(data, Roles.OPS) + ")\"");
    }

    static int down(LaunchOptions options) throws InterruptedException {
        Path data = options.data();
        Optional<Long> running = PidFile.running(data);
        if (running.isEmpty()) {
            OUT.println("Streamhouse is not running.");
            PidFile.delete(data);
            return options.purge() ? purgeWhileDown(data) : 0;
        }
        ProcessHandle launcher = ProcessHandle.of(running.get()).orElseThrow();
        if (options.purge()) {
            try {
                Files.writeString(purgeMarker(data), "requested by ./streamhouse down --purge at " + Instant.now() + "\n");
            } catch (IOException e) {
                System.err.println("cannot ask for the purge (" + e.getMessage() + "); not stopping");
                return 1;
            }
        }
        OUT.println("Stopping Streamhouse (pid " + launcher.pid() + ")" + (options.purge()
                ? " and dropping the CDC replication slot and publication" : "") + " ...");
        launcher.destroy();
        try {
            launcher.onExit().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("It did not stop within 60 s; its children exit when it does. Kill it with: kill -9 " + launcher.pid());
            return 1;
        }
        OUT.println("Stopped.");
        return 0;
    }

    private static Path purgeMarker(Path data) {
        return data.resolve("purge-requested");
    }

    /** In the stopping {@code up} process: a {@code down --purge} left its marker, so the slot goes with the worker. */
    private static void purgeIfAsked(Stack stack, Path data) {
        if (stack.platform != null && Files.exists(purgeMarker(data))) {
            OUT.println("Stopping change data capture and dropping its replication slot and publication (down --purge) ...");
            try {
                var source = stack.platform.cdcSource();
                boolean dropped = stack.platform.stopCdcAndDropCapture();
                OUT.println(source.map(s -> (dropped ? "  Dropped replication slot " : "  No replication slot ") + s.slotName()
                        + "; publication " + s.publicationName() + " dropped if it existed.").orElse("  CDC was not running."));
            } catch (java.sql.SQLException | RuntimeException e) {
                System.err.println("  Could not drop the replication slot: " + e.getMessage());
            }
            try {
                Files.deleteIfExists(purgeMarker(data));
            } catch (IOException e) {
                System.err.println("could not remove " + purgeMarker(data) + ": " + e.getMessage());
            }
        }
    }

    /**
     * {@code down --purge} with nothing running: an external PostgreSQL (STREAMHOUSE_PG_URL) keeps the slot and its
     * WAL while Streamhouse is down, so drop it there; the embedded one is stopped and holds no WAL back.
     */
    private static int purgeWhileDown(Path data) {
        var external = io.streamhouse.platform.ExternalPostgres.fromEnvironment();
        if (external.isEmpty()) {
            OUT.println("The embedded PostgreSQL is stopped; its replication slot lives in " + data.resolve("platform")
                    + " and holds no WAL back while stopped. ./streamhouse up --fresh removes it with all data.");
            return 0;
        }
        var source = new io.streamhouse.connect.CdcConnector.Source(external.get().jdbcUrl(), external.get().user(),
                external.get().password(), null, null);
        try {
            boolean dropped = io.streamhouse.platform.ShopDatabase.dropCapture(external.get(), source);
            OUT.println((dropped ? "Dropped" : "No inactive") + " replication slot " + source.slotName()
                    + "; publication " + source.publicationName() + " dropped if it existed.");
            return 0;
        } catch (java.sql.SQLException e) {
            System.err.println("Could not drop the replication slot: " + e.getMessage());
            return 1;
        }
    }

    /** Written by {@code ./streamhouse replay promote}: the serving application id the api runs under. */
    static final String SERVING_ID_FILE = "serving-application-id";

    static Optional<String> servingApplicationId(Path data) throws java.io.IOException {
        Path file = data.resolve(SERVING_ID_FILE);
        return Files.isRegularFile(file) ? Optional.of(Files.readString(file).trim()).filter(s -> !s.isEmpty()) : Optional.empty();
    }

    /** Where the running stack is, for {@code ./streamhouse replay} (same keys as the replay module's Endpoints). */
    private static void writeEndpoints(Path data, EmbeddedPlatform platform, Stack apps) throws java.io.IOException {
        // The lake's catalog too, as lake.catalog.<Iceberg property> (replay backfill reads the tables with it).
        java.util.Properties p = new java.util.Properties();
        p.setProperty("kafka.bootstrap.servers", platform.bootstrapServers());
        p.setProperty("schema.registry.url", platform.schemaRegistryUrl().toString());
        // How a tool (replay, drills, benchmarks) logs in: it adopts these unless told otherwise (its own environment).
        io.streamhouse.security.kafka.KafkaClientSettings.childEnvironment().forEach((k, v) -> p.setProperty(k, v));
        platform.lakeCatalog().forEach((k, v) -> p.setProperty("lake.catalog." + k, v));
        if (apps != null) {
            // Once the apps run (their ports may have been chosen free): the drills find ingest and every api instance here.
            apiEndpoints(apps.ingest == null ? null : apps.ingest.url(), apps.apiUrls()).forEach(p::setProperty);
            ingestEndpoints(apps.ingestUrls()).forEach(p::setProperty);
        }
        try (var w = Files.newBufferedWriter(data.resolve("endpoints.properties"))) {
            p.store(w, "Where the running stack is (written by ./streamhouse up)");
        }
    }

    /** {@code ingest.instances} (instance 1 first) and {@code <component>.url} of ingest instances 2..N. */
    static Map<String, String> ingestEndpoints(List<java.net.URI> ingestUrls) {
        Map<String, String> p = new java.util.LinkedHashMap<>();
        List<String> names = new java.util.ArrayList<>();
        for (int k = 1; k <= ingestUrls.size(); k++) {
            names.add(LaunchOptions.ingestComponent(k));
            if (k > 1) {
                p.put(LaunchOptions.ingestComponent(k) + ".url", ingestUrls.get(k - 1).toString());
            }
        }
        if (!names.isEmpty()) {
            p.put("ingest.instances", String.join(",", names));
        }
        return p;
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    /**
     * {@code ingest.url}, {@code api.instances} (the instances' component names, instance 1 first) and
     * {@code <component>.url} for each: the keys the drills module's {@code ApiInstances} reads.
     */
    static Map<String, String> apiEndpoints(java.net.URI ingest, List<java.net.URI> apiUrls) {
        Map<String, String> p = new java.util.LinkedHashMap<>();
        if (ingest != null) {
            p.put("ingest.url", ingest.toString());
        }
        List<String> names = new java.util.ArrayList<>();
        for (int k = 1; k <= apiUrls.size(); k++) {
            names.add(LaunchOptions.apiComponent(k));
            p.put(LaunchOptions.apiComponent(k) + ".url", apiUrls.get(k - 1).toString());
        }
        if (!names.isEmpty()) {
            p.put("api.instances", String.join(",", names));
        }
        return p;
    }

    /**
     * Exit codes: 0 the launcher runs and every component is running; 1 it runs but a component is starting,
     * restarting or stopped on request; 4 a component failed (was given up); 3 Streamhouse is not running.
     */
    static int status(LaunchOptions options) {
        Path data = options.data();
        Optional<Long> running = PidFile.running(data);
        Optional<StatusFile.Snapshot> snapshot;
        try {
            snapshot = StatusFile.read(data.resolve(StatusFile.NAME));
        } catch (RuntimeException e) {
            System.err.println("Cannot read " + data.resolve(StatusFile.NAME) + ": " + e.getMessage());
            snapshot = Optional.empty();
        }
        if (running.isEmpty()) {
            OUT.println("Streamhouse is not running.");
            snapshot.ifPresent(s -> {
                OUT.println("Last state its launcher (pid " + s.launcherPid() + ") wrote, at " + s.updatedAt() + ":");
                printComponents(s.components(), List.of());
            });
            return 3;
        }
        OUT.println("Streamhouse is running (launcher pid " + running.get() + ", alive)");
        if (snapshot.isEmpty() || snapshot.get().launcherPid() != running.get()) {
            OUT.println("  no component status yet: it is starting");
            return 1;
        }
        List<ChildStatus> components = snapshot.get().components();
        List<io.streamhouse.control.HealthCheck> checks = snapshot.get().checks();
        printComponents(components, checks);
        checks.forEach(c -> OUT.println("  " + c.line()));
        components.stream().filter(c -> c.name().equals(CepProcess.COMPONENT) && c.state() == ChildState.RUNNING)
                .findFirst().ifPresent(cep -> OUT.println("  " + HealthWatch.droppedLine(cep.endpoint())));
        components.stream().filter(c -> c.name().equals(SqlProcess.COMPONENT) && c.state() == ChildState.RUNNING && !c.endpoint().isEmpty())
                .findFirst().ifPresent(sql -> OUT.println("  " + maintenanceLine(sql.endpoint())));
        int code = components.stream().anyMatch(c -> c.state() == ChildState.FAILED) ? 4
                : components.stream().allMatch(c -> c.state() == ChildState.RUNNING) ? 0 : 1;
        return HealthWatch.exitCode(code, checks);
    }

    /** The lake's maintenance as the query service reports it: when it last ran and what it did, and when it runs next. */
    static String maintenanceLine(String sqlEndpoint) {
        try {
            var response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(sqlEndpoint + "/v1/maintenance")).timeout(Duration.ofSeconds(5)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 404) {
                return "lake maintenance: off";
            }
            var body = new ObjectMapper().readTree(response.body());
            if (response.statusCode() != 200) {
                return "lake maintenance: unknown (the query service answered " + response.statusCode() + ")";
            }
            var last = body.path("lastRunLine");
            return (last.isMissingNode() ? "lake maintenance: no pass yet" : last.asText()) + "; next pass at " + body.path("nextRunAt").asText();
        } catch (IOException e) {
            return "lake maintenance: unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "lake maintenance: unknown (interrupted)";
        }
    }

    /** A running component whose checks are degraded or failing shows that verdict as its state (the lines below say why). */
    private static void printComponents(List<ChildStatus> components, List<io.streamhouse.control.HealthCheck> checks) {
        OUT.printf("  %-9s %-10s %-8s %-8s %-52s %s%n", "COMPONENT", "STATE", "PID", "RESTARTS", "LAST EXIT", "ENDPOINT");
        for (ChildStatus c : components) {
            String exit = c.lastExit().map(e -> e.describe() + " at " + e.at().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)).orElse("-");
            String state = c.state() == ChildState.RUNNING
                    ? HealthWatch.worst(checks, c.name()).map(io.streamhouse.control.HealthCheck.Verdict::label).orElse(c.state().label())
                    : c.state().label();
            OUT.printf("  %-9s %-10s %-8s %-8d %-52s %s%n", c.name(), state, c.pid() == 0 ? "-" : Long.toString(c.pid()),
                    c.restarts(), exit, c.endpoint().isEmpty() ? "-" : c.endpoint());
        }
    }

    /** {@code ./streamhouse kill|restart|stop|start <component>}: a request to the running launcher; 0 if done. */
    static int control(LaunchOptions options) {
        Path data = options.data();
        if (PidFile.running(data).isEmpty()) {
            System.err.println("Streamhouse is not running (no launcher for " + data + ").");
            return 3;
        }
        try {
            ControlChannel.Response response = ControlChannel.send(data.resolve(ControlChannel.DIR),
                    new ControlChannel.Request(options.command(), options.component()), CONTROL_TIMEOUT);
            (response.ok() ? OUT : System.err).println(response.message());
            return response.ok() ? 0 : 1;
        } catch (IllegalStateException | UncheckedIOException e) {
            System.err.println(e.getMessage());
            return 1;
        }
    }

    /** Longer than any start timeout (90 s): a restart request answers once the component is ready again. */
    private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(180);

    /** In the running launcher: one control request; the message goes back to the asking command. */
    private static String control(Stack stack, ControlChannel.Request request) {
        if (!stack.ready) {
            throw new IllegalStateException("Streamhouse is still starting; try again once ./streamhouse status shows it running");
        }
        SupervisedChild child = stack.supervisor.child(request.component()).orElseThrow(() -> new IllegalArgumentException(
                "unknown component '" + request.component() + "'; this stack runs " + String.join(", ", stack.supervisor.names())));
        String name = child.name();
        switch (request.action()) {
            case "kill" -> {
                long pid = child.kill();
                return "killed " + name + " (pid " + pid + ") with SIGKILL; the supervisor restarts it (./streamhouse status)";
            }
            case "restart" -> {
                startOrExplain(child, child::restart);
                return name + " restarted: pid " + child.pid() + ", ready in " + child.lastStartDuration().toMillis() + " ms";
            }
            case "stop" -> {
                child.stop();
                return name + " stopped; it stays down until ./streamhouse start " + name;
            }
            case "start" -> {
                startOrExplain(child, child::start);
                return name + " started: pid " + child.pid() + ", ready in " + child.lastStartDuration().toMillis() + " ms";
            }
            default -> throw new IllegalArgumentException("unknown action '" + request.action() + "': kill, restart, stop or start");
        }
    }

    /** A failed start's message carries the whole log tail; the asking command gets its first line and what follows. */
    private static void startOrExplain(SupervisedChild child, Runnable start) {
        try {
            start.run();
        } catch (io.streamhouse.supervisor.ChildStartException e) {
            String first = e.getMessage().lines().findFirst().orElse("");
            throw new IllegalStateException(first + " — " + child.name() + " is now " + child.status().state().label()
                    + (child.status().state() == ChildState.RESTARTING ? " (the supervisor tries again with backoff)" : "")
                    + "; see " + child.logFile(), e);
        }
    }

    private static final Object STATUS_WRITE = new Object();

    /**
     * Called from every thread that changes a child's state (ingest and api start in parallel): one writer at a time,
     * the snapshot taken inside the lock, so two writers never share the temporary file and an older snapshot never
     * replaces a newer one.
     */
    private static void writeStatus(Path data, Stack stack) {
        synchronized (STATUS_WRITE) {
            writeStatusLocked(data, stack);
        }
    }

    private static void writeStatusLocked(Path data, Stack stack) {
        HealthWatch health = stack.health;
        try {
            StatusFile.write(data.resolve(StatusFile.NAME), new StatusFile.Snapshot(ProcessHandle.current().pid(), Instant.now(),
                    stack.supervisor.statuses(), health == null ? List.of() : health.checks()));
        } catch (UncheckedIOException e) {
            System.err.println("cannot write the status file: " + e.getMessage());
        }
    }

    /**
     * Instance {@code k} ≥ 2 of {@code app} ("api" or "ingest"): the supervised component {@code app-k}, with the stack's
     * environment plus {@code own}; returns once it is ready.
     */
    private static AppProcess startInstance(LaunchOptions options, Stack stack, Map<String, String> env, String app, int k,
                                            int port, String heap, Instant began, Map<String, String> own) throws IOException {
        Map<String, String> environment = new java.util.HashMap<>(env);
        environment.putAll(own);
        String component = app.equals("api") ? LaunchOptions.apiComponent(k) : LaunchOptions.ingestComponent(k);
        AppProcess instance = AppProcess.start(component, options.home().resolve(app + "/target/quarkus-app/quarkus-run.jar"),
                port, environment, options.data().resolve("logs"), heap, stack.supervisor);
        OUT.printf("  %s on %s (%.1f s)%n", component, instance.url(), seconds(began));
        return instance;
    }

    private static CompletableFuture<AppProcess> startApp(String name, Path jar, int port, Map<String, String> env, Path logs,
                                                          String heap, Supervisor supervisor) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return AppProcess.start(name, jar, port, env, logs, heap, supervisor);
            } catch (IOException e) {
                throw new UncheckedIOException(e.getMessage(), e);
            }
        });
    }

    private static double seconds(Instant since) {
        return Duration.between(since, Instant.now()).toMillis() / 1000.0;
    }

    /** What up started, stopped in reverse order. */
    private static final class Stack implements AutoCloseable {
        Supervisor supervisor;
        ControlChannel control;
        /** Looks inside cep and connect once the stack is ready; stopped first. */
        volatile HealthWatch health;
        volatile boolean ready;
        EmbeddedPlatform platform;
        AppProcess ingest;
        AppProcess api;
        /** Instances 2..N of the api ({@code --api-instances}). */
        final List<AppProcess> apiInstances = new java.util.concurrent.CopyOnWriteArrayList<>();
        /** Instances 2..N of ingest ({@code --ingest-instances}). */
        final List<AppProcess> ingestInstances = new java.util.concurrent.CopyOnWriteArrayList<>();
        CepProcess cep;
        SqlProcess sql;
        DemoLoad.Result demoDecisions;
        String cdcCustomer;
        Map<String, String> tokens = Map.of();
        /** How this process's Kafka clients log in; restored when the stack stops (LauncherIT runs in a test JVM). */
        io.streamhouse.security.kafka.KafkaClientSettings.ProcessSettings kafkaSettings;

        /** Every ingest instance's URL, instance 1 first. */
        List<java.net.URI> ingestUrls() {
            return urls(ingest, ingestInstances);
        }

        /** Every api instance's URL, instance 1 first. */
        List<java.net.URI> apiUrls() {
            return urls(api, apiInstances);
        }

        private static List<java.net.URI> urls(AppProcess first, List<AppProcess> others) {
            List<java.net.URI> urls = new java.util.ArrayList<>();
            if (first != null) {
                urls.add(first.url());
                others.forEach(i -> urls.add(i.url()));
            }
            return urls;
        }

        @Override
        public synchronized void close() {
            ready = false; // no more control requests
            if (health != null) {
                health.close();
                health = null;
            }
            if (control != null) {
                control.close();
                control = null;
            }
            if (sql != null) {
                sql.close();
                sql = null;
            }
            if (cep != null) {
                cep.close();
                cep = null;
            }
            for (int i = apiInstances.size() - 1; i >= 0; i--) {
                apiInstances.get(i).close();
            }
            apiInstances.clear();
            for (int i = ingestInstances.size() - 1; i >= 0; i--) {
                ingestInstances.get(i).close();
            }
            ingestInstances.clear();
            if (api != null) {
                api.close();
                api = null;
            }
            if (ingest != null) {
                ingest.close();
                ingest = null;
            }
            if (platform != null) {
                platform.close();
                platform = null;
            }
            if (kafkaSettings != null) {
                kafkaSettings.close();
                kafkaSettings = null;
            }
        }
    }

    private Launcher() {
    }
}
