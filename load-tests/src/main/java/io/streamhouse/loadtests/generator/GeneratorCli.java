package io.streamhouse.loadtests.generator;

import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Generates a seeded run, sends it to a target, and writes the ground truth next to the output directory. See the
 * docs/generator.md for the command line.
 */
@Command(name = "generator", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Deterministic Streamhouse event generator with planted anomalies and ground truth.")
public final class GeneratorCli implements Callable<Integer> {

    enum Target { file, kafka, http, mqtt, postgres }

    @Option(names = "--seed", defaultValue = "42", description = "Seed; same seed and options, same events (default ${DEFAULT-VALUE}).")
    long seed;
    @Option(names = "--events", defaultValue = "100000", description = "Events to generate (default ${DEFAULT-VALUE}).")
    int events;
    @Option(names = "--start", description = "Event time of the first activity (default: with --target file 2026-03-02T09:00:00Z;"
            + " with a running stack as target, so that the run's last event time is a minute before now).")
    Instant start;
    @Option(names = "--late-ratio", defaultValue = "0.10", description = "Share delivered out of event-time order (default ${DEFAULT-VALUE}).")
    double lateRatio;
    @Option(names = "--lateness-bound", defaultValue = "PT30S", description = "Allowed lateness assumed for consumers (default ${DEFAULT-VALUE}).")
    Duration latenessBound;
    @Option(names = "--beyond-bound-share", defaultValue = "0.2", description = "Share of late events delayed past the bound (default ${DEFAULT-VALUE}).")
    double beyondBoundShare;
    @Option(names = "--card-testing", defaultValue = "1.0", description = "Planted per 1,000 events (default ${DEFAULT-VALUE}).")
    double cardTesting;
    @Option(names = "--impossible-travel", defaultValue = "1.0", description = "Planted per 1,000 events (default ${DEFAULT-VALUE}).")
    double impossibleTravel;
    @Option(names = "--account-takeover", defaultValue = "0.5", description = "Planted per 1,000 events (default ${DEFAULT-VALUE}).")
    double accountTakeover;
    @Option(names = "--parcel-stuck", defaultValue = "1.0", description = "Planted per 1,000 events (default ${DEFAULT-VALUE}).")
    double parcelStuck;
    @Option(names = "--engine-overheating", defaultValue = "1.0", description = "Planted per 1,000 events (default ${DEFAULT-VALUE}).")
    double engineOverheating;
    @Option(names = "--customers", defaultValue = "2000", description = "World size (default ${DEFAULT-VALUE}).")
    int customers;
    @Option(names = "--vehicles", defaultValue = "40", description = "World size (default ${DEFAULT-VALUE}).")
    int vehicles;

    @Option(names = "--target", defaultValue = "file", description = "file, kafka, http (transactions, telemetry, parcel scans), mqtt (telemetry) or postgres (customers, orders) (default ${DEFAULT-VALUE}).")
    Target target;
    @Option(names = "--kinds", split = ",", description = "Event kinds to send: ${COMPLETION-CANDIDATES} (default: all that the target carries).")
    Set<EventKind> kinds;
    @Option(names = "--bootstrap", description = "Kafka bootstrap servers, loopback only (default: the stack's, from"
            + " <data>/endpoints.properties, which also gives its Kafka logins; else 127.0.0.1:9092).")
    String bootstrap;
    @Option(names = "--registry", description = "Schema registry URL, loopback only (default: the stack's, from"
            + " <data>/endpoints.properties; else http://127.0.0.1:8085).")
    String registry;
    @Option(names = "--ingest", defaultValue = "http://127.0.0.1:8081", description = "Ingest base URL, loopback only (default ${DEFAULT-VALUE}).")
    String ingest;
    @Option(names = "--data", defaultValue = ".streamhouse", description = "The stack's data directory: --target kafka's"
            + " broker, registry and Kafka logins (endpoints.properties), --target http's payments and device tokens (tokens/<role>.jwt, written by ./streamhouse up; STREAMHOUSE_TOKEN_<ROLE>"
            + " overrides) (default ${DEFAULT-VALUE}).")
    java.nio.file.Path data;
    @Option(names = "--mqtt", defaultValue = "tcp://127.0.0.1:1883", description = "MQTT broker for --target mqtt, loopback only (default ${DEFAULT-VALUE}).")
    String mqtt;
    @Option(names = "--jdbc-url", defaultValue = "jdbc:postgresql://127.0.0.1:5432/streamhouse", description = "Shop database for --target postgres, loopback only (default ${DEFAULT-VALUE}).")
    String jdbcUrl;
    @Option(names = "--jdbc-user", defaultValue = "postgres", description = "Database user (default ${DEFAULT-VALUE}).")
    String jdbcUser;
    @Option(names = "--jdbc-password", defaultValue = "", description = "Database password (default: none).")
    String jdbcPassword;
    @Option(names = "--http-concurrency", defaultValue = "1", description = "Requests in flight; above 1 the delivery order is only approximate (default ${DEFAULT-VALUE}).")
    int httpConcurrency;
    @Option(names = "--deadline", defaultValue = "PT10M", description = "Overall limit for sending (default ${DEFAULT-VALUE}).")
    Duration deadline;
    @Option(names = "--out", defaultValue = "target/gen", description = "Directory for ground truth (and events.jsonl with --target file) (default ${DEFAULT-VALUE}).")
    Path out;
    @Option(names = "--no-progress", description = "No progress line on stderr.")
    boolean noProgress;

    private PrintStream stdout = System.out;
    private PrintStream stderr = System.err;
    private Clock clock = Clock.systemUTC();

    public static void main(String[] args) {
        // The Kafka client logs its whole configuration at INFO, which would bury the progress line.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(io.streamhouse.control.CliLog.run("generate", args, (a, terminal) -> run(a, System.out, terminal)));
    }

    /** Runs the command line; returns the exit code (0 ok, 1 failed, 2 bad usage). */
    public static int run(String[] args, PrintStream stdout, PrintStream stderr) {
        return run(args, stdout, stderr, Clock.systemUTC());
    }

    /** As {@link #run(String[], PrintStream, PrintStream)}, with {@code clock} for a network target's default start. */
    static int run(String[] args, PrintStream stdout, PrintStream stderr, Clock clock) {
        GeneratorCli cli = new GeneratorCli();
        cli.stdout = stdout;
        cli.stderr = stderr;
        cli.clock = clock;
        CommandLine cmd = new CommandLine(cli)
                .registerConverter(Instant.class, Instant::parse)
                .registerConverter(Duration.class, Duration::parse)
                .setCaseInsensitiveEnumValuesAllowed(true)
                // ./streamhouse generate passes --target kafka first; a --target of the user's own wins.
                .setOverwrittenOptionsAllowed(true);
        cmd.setOut(new PrintWriter(stdout, true));
        cmd.setErr(new PrintWriter(stderr, true));
        cmd.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            stderr.println("generator: " + e.getMessage());
            return 1;
        });
        return cmd.execute(args);
    }

    @Override
    public Integer call() throws IOException {
        Set<EventKind> chosen = kinds == null || kinds.isEmpty() ? defaultKinds() : EnumSet.copyOf(kinds);
        GeneratorConfig config = new GeneratorConfig(seed, events, start != null ? start : GeneratorConfig.DEFAULT_START, lateRatio, latenessBound, beyondBoundShare,
                new AnomalyRates(cardTesting, impossibleTravel, accountTakeover, parcelStuck, engineOverheating),
                PatternRules.DEFAULT, Duration.ofMillis(200), customers, vehicles);
        checkTarget(chosen);
        long began = System.nanoTime();
        // Explicit --start as given; a file's run is fixed by its options alone; a stack's must end before its clock.
        Generation g = start != null || target == Target.file ? Generator.generate(config)
                : RelativeStart.generateEndingBefore(config, clock.instant());
        Duration generated = Duration.ofNanos(System.nanoTime() - began);
        Files.createDirectories(out);
        GroundTruthFiles.writeAll(g, out);
        try (Sink sink = open(g)) {
            long toSend = g.events().stream().filter(e -> chosen.contains(e.kind())).count();
            Progress progress = noProgress ? null : new Progress(stderr, "sending to " + target, toSend);
            SinkRun.Result result = SinkRun.send(g, sink, chosen, deadline, progress);
            printSummary(g, generated, result, sink);
        }
        return 0;
    }

    /** Every kind the target can carry. */
    private Set<EventKind> defaultKinds() {
        return switch (target) {
            case file, kafka -> EnumSet.allOf(EventKind.class);
            case http -> EnumSet.of(EventKind.TRANSACTION, EventKind.VEHICLE_TELEMETRY, EventKind.PARCEL_SCAN);
            case mqtt -> EnumSet.of(EventKind.VEHICLE_TELEMETRY);
            case postgres -> EnumSet.of(EventKind.CUSTOMER, EventKind.ORDER);
        };
    }

    /** Fails before any work on a non-loopback address or an event kind the target cannot carry. */
    private void checkTarget(Set<EventKind> chosen) {
        switch (target) {
            case file -> { }
            case kafka -> {
                if (bootstrap != null) {
                    Loopback.requireBootstrap(bootstrap);
                }
                if (registry != null) {
                    Loopback.requireUri(registry, "schema registry");
                }
            }
            case postgres -> requireKinds(chosen, EnumSet.of(EventKind.CUSTOMER, EventKind.ORDER),
                    "the shop schema (change data capture turns them into shop.customers / shop.orders)");
            case http -> {
                Loopback.requireUri(ingest, "ingest URL");
                requireKinds(chosen, EnumSet.of(EventKind.TRANSACTION, EventKind.VEHICLE_TELEMETRY, EventKind.PARCEL_SCAN),
                        "ingest's HTTP endpoints (customers and orders come from the shop database by change data capture)");
            }
            case mqtt -> requireKinds(chosen, EnumSet.of(EventKind.VEHICLE_TELEMETRY), "MQTT (vehicles publish telemetry)");
        }
    }

    private void requireKinds(Set<EventKind> chosen, Set<EventKind> carried, String what) {
        if (!carried.containsAll(chosen)) {
            throw new UnsupportedOperationException("the " + target + " target carries only " + carried + " over " + what
                    + "; pass --kinds with those, or use --target kafka for every kind.");
        }
    }

    private Sink open(Generation g) throws IOException {
        return switch (target) {
            case file -> new FileSink(out.resolve("events.jsonl"));
            case kafka -> {
                StackEndpoints stack = StackEndpoints.resolve(bootstrap, registry, data);
                yield new KafkaSink(stack.bootstrapServers(), stack.registryUrl(), Map.of());
            }
            case postgres -> new PostgresSink(jdbcUrl, jdbcUser, jdbcPassword, g.customers());
            case http -> {
                Map<String, String> pans = new LinkedHashMap<>();
                g.cards().forEach(c -> pans.put(c.token(), c.pan()));
                yield new HttpSink(ingest, pans, httpConcurrency, StackTokens.read(data, Roles.PAYMENTS), StackTokens.read(data, Roles.DEVICE));
            }
            case mqtt -> new MqttSink(mqtt, 100);
        };
    }

    private void printSummary(Generation g, Duration generated, SinkRun.Result result, Sink sink) {
        var summary = GroundTruthFiles.summary(g);
        double seconds = Math.max(result.elapsed().toNanos() / 1e9, 1e-3);
        stdout.printf(Locale.ROOT, "Generated %,d events (seed %d) in %.1f s; event time %s .. %s%n", g.events().size(),
                g.config().seed(), generated.toNanos() / 1e9, summary.path("events").path("firstOccurredAt").asText(),
                summary.path("events").path("lastOccurredAt").asText());
        stdout.printf(Locale.ROOT, "Sent %,d to %s in %.1f s (%,.0f/s)%s%n", result.sent(), sink.describe(), seconds,
                result.sent() / seconds, result.skipped() > 0 ? "; " + result.skipped() + " of other kinds not sent" : "");
        stdout.println("Anomalies planted: " + summary.get("anomalies"));
        stdout.printf(Locale.ROOT, "Late: %,d events (%.1f %%), %,d beyond the %s bound%n", g.lateEvents().size(),
                100.0 * g.lateEvents().size() / g.events().size(), summary.path("late").path("beyondBound").asLong(),
                g.config().latenessBound());
        stdout.println("Ground truth: " + out.resolve("ground-truth.jsonl") + ", " + out.resolve("late-events.jsonl")
                + ", " + out.resolve("cards.jsonl") + ", " + out.resolve("customers.jsonl") + ", " + out.resolve("summary.json")
                + (target == Target.file ? "; events: " + out.resolve("events.jsonl") : ""));
    }
}
