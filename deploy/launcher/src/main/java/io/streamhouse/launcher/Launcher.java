package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.control.CliLog;
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
    /** The terminal's standard error: {@code up} moves library logging off it ({@link CliLog}). */
    private static PrintStream ERR = System.err;
    private static CliLog libraryLog;

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("console")) {
            System.exit(ConsoleLink.run(args, Path.of(System.getProperty("streamhouse.home", ".")).toAbsolutePath().normalize(), OUT, ERR));
        }
        LaunchOptions options;
        try {
            options = LaunchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            ERR.println(e.getMessage());
            ERR.println(LaunchOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.command().equals("up")) {
            libraryLog = CliLog.start("launcher", options.data(), java.util.Arrays.asList(args).contains(CliLog.VERBOSE));
            ERR = libraryLog.terminal();
        }
        int code = switch (options.command()) {
            case "up" -> up(options);
            case "down" -> down(options);
            case "status" -> status(options);
            case "kill", "restart", "stop", "start" -> control(options);
            case "demo" -> demo(options, OUT, ERR);
            default -> {
                ERR.println(LaunchOptions.USAGE);
                yield 2;
            }
        };
        System.exit(code);
    }

    /** One line on how many library warnings and errors went to the launcher's log, if any did. */
    private static void printLibrarySummary() {
        if (libraryLog != null) {
            libraryLog.summary().ifPresent(line -> OUT.println("  " + line));
        }
    }

    static int up(LaunchOptions options) throws Exception {
        Instant began = Instant.now();
        Path data = options.data();
        Files.createDirectories(data);
        Optional<Long> running = PidFile.running(data);
        if (running.isPresent()) {
            ERR.println("Streamhouse is already running (pid " + running.get() + "): ./streamhouse down first");
            return 1;
        }
        Optional<String> layout = options.fresh() ? Optional.empty() : DataLayout.refusal(data);
        if (layout.isPresent()) {
            ERR.println(layout.get());
            return 1;
        }
        Optional<String> tooBig = options.plan().refusal(options.runs(LaunchOptions.Part.CEP),
                options.runs(LaunchOptions.Part.CDC) || options.runs(LaunchOptions.Part.LAKE), options.runs(LaunchOptions.Part.SQL),
                ClusterPlan.availableMemoryMib(Path.of("/proc/meminfo")));
        if (tooBig.isPresent()) {
            ERR.println(tooBig.get());
            return 1;
        }
        List<String> inUse = Preflight.portsInUse(options);
        if (!inUse.isEmpty()) {
            inUse.forEach(ERR::println);
            return 1;
        }
        if (options.fresh()) {
            OUT.println("Starting fresh: removing the topics, database and state in " + data);
            for (String dir : DataLayout.DATA) {
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
        DataLayout.write(data);
        PidFile.write(data, ProcessHandle.current().pid());
        RunningStack stack = new RunningStack();
        // Start-up prints its own lines; from then on every supervisor event is a line of its own.
        stack.supervisor = new Supervisor(RestartPolicy.LAUNCHER, event -> {
            if (stack.ready || !(event instanceof SupervisorEvent.Started || event instanceof SupervisorEvent.Stopped)) {
                OUT.println("  [supervisor] " + event.line()
                        + (event instanceof SupervisorEvent.GaveUp ? " (./streamhouse start " + event.component() + " tries again)" : ""));
            }
        });
        stack.supervisor.onStateChange(() -> writeStatus(data, stack));
        stack.control = ControlChannel.serve(data.resolve(ControlChannel.DIR), request -> control(stack, options, request));
        CountDownLatch stopped = new CountDownLatch(1);
        Files.deleteIfExists(purgeMarker(data));
        Thread hook = new Thread(() -> {
            OUT.println("Stopping Streamhouse ...");
            long stopping = System.nanoTime();
            purgeIfAsked(stack, data);
            stack.close();
            PidFile.delete(data);
            printLibrarySummary();
            String times = stack.stopTimes();
            OUT.printf("Stopped in %.1f s%s.%n", (System.nanoTime() - stopping) / 1e9, times.isEmpty() ? "" : " (" + times + ")");
            stopped.countDown();
        }, "streamhouse-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            StartContext context = new StartContext(options, began, stack);
            StartListener listener = new StartListener(OUT);
            listener.run(steps(options), context);
            stack.ready = true;
            // From now on, what runs inside the cep and connect processes is looked at too (status.json, [health] lines).
            String bootstrap = stack.platform.bootstrapServers();
            var kafka = io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(io.streamhouse.security.kafka.KafkaPrincipal.PLATFORM);
            HealthDetails.Sources sources = new HealthDetails.Sources(
                    () -> ProcessorLag.ofStack(servingApplicationIdOrDefault(data), stack.ingest != null,
                            options.runs(LaunchOptions.Part.LAKE), stack.cep != null || stack.cepCluster != null),
                    stack::apiUrls, () -> Optional.ofNullable(stack.sql).map(SqlProcess::url),
                    options.runs(LaunchOptions.Part.LAKE) ? Optional.of(stack.platform.lakeCatalog()) : Optional.empty());
            stack.health = new HealthWatch(stack.supervisor, () -> org.apache.kafka.clients.admin.Admin.create(
                    kafka.admin(bootstrap, Map.of("request.timeout.ms", "4000", "default.api.timeout.ms", "5000"))),
                    line -> OUT.println("  [health] " + line), () -> writeStatus(data, stack),
                    admin -> new HealthDetails(sources, admin, () -> new org.apache.kafka.clients.consumer.KafkaConsumer<>(
                            kafka.consumer(bootstrap, ProcessorLag.consumerSettings())))).sessionJob(
                    () -> Optional.ofNullable(stack.cepCluster).map(CepCluster::endpoint)).start();
            OUT.printf("Streamhouse is ready in %.1f s%n", seconds(began));
            OUT.println(listener.timingLine());
            ReadyLines.print(stack, data);
            printLibrarySummary();

            boolean demoOk = true;
            if (options.demoCount() > 0) {
                demoOk = Demo.run(stack, options.runs(LaunchOptions.Part.CDC), options.demoCount(), options.seed(), OUT);
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
            ERR.println(Preflight.startFailure(cause, data.resolve("logs")));
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
                ERR.println("cannot ask for the purge (" + e.getMessage() + "); not stopping");
                return 1;
            }
        }
        OUT.println("Stopping Streamhouse (pid " + launcher.pid() + ")" + (options.purge()
                ? " and dropping the CDC replication slot and publication" : "") + " ...");
        launcher.destroy();
        try {
            launcher.onExit().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            ERR.println("It did not stop within 60 s; its children exit when it does. Kill it with: kill -9 " + launcher.pid());
            return 1;
        }
        OUT.println("Stopped.");
        return 0;
    }

    /** The start steps in order: each after the ones before it, where its dependencies are. */
    static List<StartStep> steps(LaunchOptions options) {
        List<StartStep> steps = new java.util.ArrayList<>(List.of(new PlatformStep(), new PostgresStep(), new CdcStep(), new AppsStep()));
        for (InstancesStep instances : List.of(InstancesStep.api(), InstancesStep.ingest())) {
            if (instances.needed(options)) {
                steps.add(instances);
            }
        }
        steps.addAll(List.of(new CepStep(), new LakeStep(), new SqlStep()));
        return steps;
    }

    private static Path purgeMarker(Path data) {
        return data.resolve("purge-requested");
    }

    /** In the stopping {@code up} process: a {@code down --purge} left its marker, so the slot goes with the worker. */
    private static void purgeIfAsked(RunningStack stack, Path data) {
        if (stack.platform != null && Files.exists(purgeMarker(data))) {
            OUT.println("Stopping change data capture and dropping its replication slot and publication (down --purge) ...");
            try {
                var source = stack.platform.cdcSource();
                boolean dropped = stack.platform.stopCdcAndDropCapture();
                OUT.println(source.map(s -> (dropped ? "  Dropped replication slot " : "  No replication slot ") + s.slotName()
                        + "; publication " + s.publicationName() + " dropped if it existed.").orElse("  CDC was not running."));
            } catch (java.sql.SQLException | RuntimeException e) {
                ERR.println("  Could not drop the replication slot: " + e.getMessage());
            }
            try {
                Files.deleteIfExists(purgeMarker(data));
            } catch (IOException e) {
                ERR.println("could not remove " + purgeMarker(data) + ": " + e.getMessage());
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
            ERR.println("Could not drop the replication slot: " + e.getMessage());
            return 1;
        }
    }

    /** Written by {@code ./streamhouse replay promote}: the serving application id the api runs under. */
    static final String SERVING_ID_FILE = "serving-application-id";

    /** The serving application id the api runs under now: the promoted one, else the default. */
    static String servingApplicationIdOrDefault(Path data) {
        try {
            return servingApplicationId(data).orElse(io.streamhouse.platform.KafkaAcls.SERVING_APP);
        } catch (java.io.IOException e) {
            return io.streamhouse.platform.KafkaAcls.SERVING_APP;
        }
    }

    static Optional<String> servingApplicationId(Path data) throws java.io.IOException {
        Path file = data.resolve(SERVING_ID_FILE);
        return Files.isRegularFile(file) ? Optional.of(Files.readString(file).trim()).filter(s -> !s.isEmpty()) : Optional.empty();
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
            ERR.println("Cannot read " + data.resolve(StatusFile.NAME) + ": " + e.getMessage());
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
        HealthDetails.statusLines(snapshot.get().details()).forEach(l -> OUT.println("  " + l));
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
        // As wide as the longest name (flink-taskmanager-2 on a cluster), at least the header's.
        int width = components.stream().mapToInt(c -> c.name().length()).max().orElse(0);
        String row = "  %-" + Math.max(9, width) + "s %-10s %-8s %-8s %-52s %s%n";
        OUT.printf(row, "COMPONENT", "STATE", "PID", "RESTARTS", "LAST EXIT", "ENDPOINT");
        for (ChildStatus c : components) {
            String exit = c.lastExit().map(e -> e.describe() + " at " + e.at().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)).orElse("-");
            String state = c.state() == ChildState.RUNNING
                    ? HealthWatch.worst(checks, c.name()).map(io.streamhouse.control.HealthCheck.Verdict::label).orElse(c.state().label())
                    : c.state().label();
            OUT.printf(row, c.name(), state, c.pid() == 0 ? "-" : Long.toString(c.pid()),
                    Integer.toString(c.restarts()), exit, c.endpoint().isEmpty() ? "-" : c.endpoint());
        }
    }

    /** {@code ./streamhouse kill|restart|stop|start <component>}: a request to the running launcher; 0 if done. */
    static int control(LaunchOptions options) {
        return ask(options.data(), new ControlChannel.Request(options.command(), options.component()), CONTROL_TIMEOUT, OUT, ERR);
    }

    /**
     * Sends {@code request} to the launcher running for {@code data} and prints its answer: 0 if done, 1 if refused or
     * failed, 3 if no launcher runs there.
     */
    private static int ask(Path data, ControlChannel.Request request, Duration timeout, PrintStream out, PrintStream err) {
        if (PidFile.running(data).isEmpty()) {
            err.println("Streamhouse is not running (no launcher for " + data + ").");
            return 3;
        }
        try {
            ControlChannel.Response response = ControlChannel.send(data.resolve(ControlChannel.DIR), request, timeout);
            (response.ok() ? out : err).println(response.message());
            return response.ok() ? 0 : 1;
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println(e.getMessage());
            return 1;
        }
    }

    /** Longer than any start timeout (90 s): a restart request answers once the component is ready again. */
    private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(180);

    /** In the running launcher: one control request; the message goes back to the asking command. */
    private static String control(RunningStack stack, LaunchOptions options, ControlChannel.Request request) {
        if (!stack.ready) {
            throw new IllegalStateException("Streamhouse is still starting; try again once ./streamhouse status shows it running");
        }
        if (request.action().equals(DEMO)) {
            return demoInTheLauncher(stack, options, request.component());
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

    private static final String DEMO = "demo";
    /** Longer than the demo's legs may take together (each waits at most 60 s). */
    private static final Duration DEMO_TIMEOUT = Duration.ofSeconds(300);

    /**
     * {@code ./streamhouse demo [--demo N] [--seed S]}: the demo again, run by the running launcher (it holds the
     * stack's tokens and database login); its lines are printed here. 0 if every leg passed, 1 if one failed.
     */
    static int demo(LaunchOptions options, PrintStream out, PrintStream err) {
        return ask(options.data(), new ControlChannel.Request(DEMO, options.demoCount() + " " + options.seed()), DEMO_TIMEOUT, out, err);
    }

    /** In the running launcher: the demo's legs with the asked count and seed ({@code "<count> <seed>"}); its lines. */
    private static String demoInTheLauncher(RunningStack stack, LaunchOptions options, String countAndSeed) {
        String[] words = countAndSeed.trim().split("\\s+");
        int count;
        long seed;
        try {
            count = Integer.parseInt(words[0]);
            seed = Long.parseLong(words[1]);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("a demo request is 'demo <count> <seed>', got 'demo " + countAndSeed + "'");
        }
        var lines = new java.io.ByteArrayOutputStream();
        boolean ok;
        try (var out = new PrintStream(lines, true, java.nio.charset.StandardCharsets.UTF_8)) {
            ok = Demo.run(stack, options.runs(LaunchOptions.Part.CDC), count, seed, out);
        } catch (Exception e) {
            throw new IllegalStateException(lines.toString(java.nio.charset.StandardCharsets.UTF_8)
                    + "The demo stopped: " + e.getMessage(), e);
        }
        String text = lines.toString(java.nio.charset.StandardCharsets.UTF_8).stripTrailing();
        if (!ok) {
            throw new IllegalStateException(text);
        }
        return text;
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
    private static void writeStatus(Path data, RunningStack stack) {
        synchronized (STATUS_WRITE) {
            writeStatusLocked(data, stack);
        }
    }

    private static void writeStatusLocked(Path data, RunningStack stack) {
        HealthWatch health = stack.health;
        try {
            StatusFile.write(data.resolve(StatusFile.NAME), new StatusFile.Snapshot(ProcessHandle.current().pid(), Instant.now(),
                    stack.supervisor.statuses(), health == null ? List.of() : health.checks(),
                    health == null ? Map.of() : health.details()));
        } catch (UncheckedIOException e) {
            ERR.println("cannot write the status file: " + e.getMessage());
        }
    }

    private static double seconds(Instant since) {
        return Duration.between(since, Instant.now()).toMillis() / 1000.0;
    }

    private Launcher() {
    }
}
