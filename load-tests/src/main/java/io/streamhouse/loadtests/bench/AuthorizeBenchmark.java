package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.loadtests.generator.Loopback;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The Decisions issue's benchmark: synchronous authorize latency at sustained rates, against Kafka's own round trips
 * on the same broker in the same run, and the throughput ceiling. Run it against {@code ./streamhouse up --no-demo}
 * (see docs/benchmarks.md for the command and the figures).
 * <ol>
 *   <li>Kafka's {@code EndToEndLatency} (one message at a time, produce then consume, acks=all).</li>
 *   <li>Per rate: Kafka's two-hop round trip with plain clients ({@link TwoHopBaseline}), the same with a
 *       transactional relay committing every {@code --commit-interval} and a read_committed reader (what
 *       exactly-once costs), then authorize through ingest and the api's decision topology, after a warm-up.</li>
 *   <li>The ceiling: open-loop steps of rising rate; the highest rate at which at least 99.9 % of requests got their
 *       decision (not the fallback) and p99 stayed under {@code --ceiling-p99-ms}.</li>
 * </ol>
 */
@Command(name = "authorize-benchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Authorize latency and throughput against Kafka's own round trips in the same run.")
public final class AuthorizeBenchmark implements Callable<Integer> {

    @Option(names = "--ingest", split = ",", defaultValue = "http://127.0.0.1:8081", description = "Ingest base URL(s), loopback only;"
            + " several (comma-separated: the ingest.instances of endpoints.properties) take the requests in turn (default ${DEFAULT-VALUE}).")
    List<String> ingest;
    @Option(names = "--data", defaultValue = ".streamhouse", description = "The stack's data directory, for its payments token"
            + " (tokens/<role>.jwt, written by ./streamhouse up; STREAMHOUSE_TOKEN_<ROLE> overrides) (default ${DEFAULT-VALUE}).")
    java.nio.file.Path data;
    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap, loopback only (default ${DEFAULT-VALUE}).")
    String bootstrap;
    @Option(names = "--rates", split = ",", defaultValue = "500,2000", description = "Sustained rates, per second (default ${DEFAULT-VALUE}).")
    List<Integer> rates;
    @Option(names = "--duration", defaultValue = "PT60S", description = "Measured time per rate and phase (default ${DEFAULT-VALUE}).")
    Duration duration;
    @Option(names = "--warmup", defaultValue = "PT10S", description = "Unrecorded authorize load before each measured rate (default ${DEFAULT-VALUE}).")
    Duration warmup;
    @Option(names = "--commit-interval", defaultValue = "PT0.1S", description = "The transactional relay's commit interval; set it to the api's kafka-streams commit.interval.ms (default ${DEFAULT-VALUE}).")
    Duration commitInterval;
    @Option(names = "--ceiling-rates", split = ",", defaultValue = "1000,2000,3000,4000,6000,8000", description = "Rates tried, in order, for the ceiling; stops at the first not sustained (default ${DEFAULT-VALUE}).")
    List<Integer> ceilingRates;
    @Option(names = "--ceiling-duration", defaultValue = "PT20S", description = "Time per ceiling step (default ${DEFAULT-VALUE}).")
    Duration ceilingDuration;
    @Option(names = "--ceiling-p99-ms", defaultValue = "1000", description = "A rate is sustained when at least 99.9 % of requests are decided and p99 stays under this (default ${DEFAULT-VALUE}).")
    int ceilingP99Millis;
    @Option(names = "--e2e-messages", defaultValue = "5000", description = "Messages for EndToEndLatency (default ${DEFAULT-VALUE}).")
    int e2eMessages;
    @Option(names = "--size", defaultValue = "400", description = "Baseline record size in bytes, about an authorize request's Avro record (default ${DEFAULT-VALUE}).")
    int size;
    @Option(names = "--deadline-ms", defaultValue = "5000", description = "Authorize deadline asked for (?deadlineMs=) (default ${DEFAULT-VALUE}).")
    int deadlineMillis;
    @Option(names = "--fresh-minute", defaultValue = "0", description = "Before anything else, authorize at this rate for"
            + " --fresh-duration with no warm-up: the first minute after a fresh stack reported ready (0: skip) (default ${DEFAULT-VALUE}).")
    int freshRate;
    @Option(names = "--fresh-duration", defaultValue = "PT60S", description = "Length of the --fresh-minute phase (default ${DEFAULT-VALUE}).")
    Duration freshDuration;
    @Option(names = "--cpu", split = ",", description = "name=pid of the stack's processes (broker, ingest, api: ./streamhouse status"
            + " lists them) whose CPU time each authorize phase reports per request, with the benchmark's own and the machine's.")
    List<String> cpu = List.of();
    @Option(names = "--tools", defaultValue = "load-tests/target", description = "Directory holding kafka-tools.classpath (default ${DEFAULT-VALUE}).")
    Path tools;

    private final PrintStream out = System.out;

    public static void main(String[] args) {
        // Kafka clients log every config at INFO; the benchmark's own output is what matters.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(BenchmarkCommand.execute("authorize-benchmark", new AuthorizeBenchmark(), args));
    }

    @Override
    public Integer call() throws Exception {
        List<URI> ingestUri = ingest.stream().map(u -> Loopback.requireUri(u.trim(), "--ingest")).toList();
        Loopback.requireBootstrap(bootstrap);
        String runId = Long.toString(System.currentTimeMillis(), 36);
        out.printf(Locale.ROOT, "Authorize benchmark %s at %s: rates %s for %s each, warm-up %s, relay commit interval %s, %d cores, ingest %s%n",
                runId, Instant.now(), rates, duration, warmup, commitInterval, Runtime.getRuntime().availableProcessors(), ingestUri);

        CpuUse cpuUse = new CpuUse(CpuUse.parse(cpu));
        String fresh = null;
        if (freshRate > 0) {
            // First, before the JIT or the caches warmed up on anything: what a payments service meets after a deploy.
            HttpLoad first = new HttpLoad(ingestUri, new BenchPayments(runId, 7), deadlineMillis,
                    io.streamhouse.security.StackTokens.read(data, io.streamhouse.security.Roles.PAYMENTS));
            CpuUse.Snapshot before = cpuUse.snapshot();
            HttpLoad.Result r = first.openLoop("f", freshRate, freshDuration);
            String freshCpu = cpuUse.isEmpty() ? "" : "; CPU: " + CpuUse.between(before, cpuUse.snapshot(), r.sent());
            fresh = String.format(Locale.ROOT, "First %s after readiness at %d/s, no warm-up: %s (sent %d, decided %d, fallback %d, 429 %d, failed %d %s, not sent %d)",
                    freshDuration, freshRate, r.answered().summary(), r.sent(), r.decidedCount(), r.fallback(), r.refused(),
                    r.failed(), r.failures(), r.notSent()) + freshCpu;
            out.println(fresh);
            // The rest measures a drained, warm path; a backlog left by the first minute would be measured instead.
            var drained = first.drain("fd", 60, Duration.ofMinutes(5));
            out.printf(Locale.ROOT, "after the first minute: %s%n",
                    drained.map(d -> "drained in " + d.toMillis() + " ms").orElse("NOT drained within 5 minutes"));
            first.close();
            if (drained.isEmpty()) {
                return 1;
            }
        }
        KafkaTool.EndToEnd e2e = endToEnd(runId);
        out.printf(Locale.ROOT, "Kafka EndToEndLatency (%d messages, %d B, acks=all): p50 %d ms, p99 %d ms, p99.9 %d ms%n",
                e2eMessages, size, e2e.p50(), e2e.p99(), e2e.p999());

        TwoHopBaseline twoHop = new TwoHopBaseline(bootstrap);
        BenchPayments payments = new BenchPayments(runId, 42);
        HttpLoad load = new HttpLoad(ingestUri, payments, deadlineMillis,
                io.streamhouse.security.StackTokens.read(data, io.streamhouse.security.Roles.PAYMENTS));
        StringBuilder table = new StringBuilder();
        table.append("| rate/s | path | answers | p50 ms | p99 ms | p99.9 ms | max ms | p99 / raw two-hop p99 | not decided |\n");
        table.append("|---|---|---|---|---|---|---|---|---|\n");
        for (int rate : rates) {
            TwoHopBaseline.Result raw = twoHop.run(runId + "r" + rate, rate, warmup, duration, size, commitInterval, false);
            out.printf(Locale.ROOT, "%5d/s raw two-hop:            %s (sent %d, received %d)%n", rate, raw.latencies().summary(), raw.sent(), raw.received());
            TwoHopBaseline.Result tx = twoHop.run(runId + "t" + rate, rate, warmup, duration, size, commitInterval, true);
            out.printf(Locale.ROOT, "%5d/s transactional two-hop:  %s (sent %d, received %d)%n", rate, tx.latencies().summary(), tx.sent(), tx.received());
            load.openLoop("w" + rate, rate, warmup);
            CpuUse.Snapshot before = cpuUse.snapshot();
            HttpLoad.Result auth = load.openLoop("a" + rate, rate, duration);
            CpuUse.Snapshot after = cpuUse.snapshot();
            out.printf(Locale.ROOT, "%5d/s authorize:              %s (sent %d, decided %d, fallback %d, 429 %d, failed %d %s, not sent %d)%n",
                    rate, auth.answered().summary(), auth.sent(), auth.decidedCount(), auth.fallback(), auth.refused(),
                    auth.failed(), auth.failures(), auth.notSent());
            if (!cpuUse.isEmpty()) {
                out.printf(Locale.ROOT, "%5d/s authorize CPU:          %s%n", rate, CpuUse.between(before, after, auth.sent()));
            }
            double rawP99 = raw.latencies().percentileMillis(99);
            row(table, rate, "Kafka two-hop, plain clients", raw.latencies(), rawP99, raw.sent() - raw.received());
            row(table, rate, "Kafka two-hop, transactional relay (commit " + commitInterval.toMillis() + " ms), read_committed",
                    tx.latencies(), rawP99, tx.sent() - tx.received());
            row(table, rate, "authorize (HTTP → ingest → Streams → ingest)", auth.answered(), rawP99,
                    auth.sent() - auth.decidedCount());
        }
        StringBuilder ceiling = new StringBuilder("| offered/s | decided/s | p50 ms | p99 ms | fallback | 429 | failed | not sent | sustained |\n"
                + "|---|---|---|---|---|---|---|---|---|\n");
        int sustainedRate = 0;
        for (int rate : ceilingRates) {
            // Each step starts from an empty backlog: a step after an unsustained one would measure the backlog.
            var drained = load.drain("d" + rate, 60, Duration.ofMinutes(3));
            out.printf(Locale.ROOT, "before ceiling step %5d/s: %s%n", rate,
                    drained.map(d -> "drained in " + d.toMillis() + " ms").orElse("NOT drained within 3 minutes"));
            if (drained.isEmpty()) {
                break;
            }
            CpuUse.Snapshot before = cpuUse.snapshot();
            HttpLoad.Result r = load.openLoop("c" + rate, rate, ceilingDuration);
            String stepCpu = cpuUse.isEmpty() ? "" : "; CPU: " + CpuUse.between(before, cpuUse.snapshot(), r.sent());
            boolean sustained = r.decidedCount() >= 0.999 * r.sent() && r.answered().percentileMillis(99) < ceilingP99Millis;
            out.printf(Locale.ROOT, "ceiling step %5d/s: %.0f decided/s, %s (fallback %d, 429 %d, failed %d %s, not sent %d)%s%s%n",
                    rate, r.decidedPerSecond(), r.answered().summary(), r.fallback(), r.refused(), r.failed(), r.failures(),
                    r.notSent(), sustained ? "" : " — not sustained", stepCpu);
            ceiling.append(String.format(Locale.ROOT, "| %d | %.0f | %.1f | %.1f | %d | %d | %d | %d | %s |%n", rate, r.decidedPerSecond(),
                    r.answered().percentileMillis(50), r.answered().percentileMillis(99), r.fallback(), r.refused(), r.failed(),
                    r.notSent(), sustained ? "yes" : "no"));
            if (!sustained) {
                break;
            }
            sustainedRate = rate;
        }
        out.println();
        out.printf(Locale.ROOT, "Kafka EndToEndLatency: p50 %d ms, p99 %d ms, p99.9 %d ms%n%n", e2e.p50(), e2e.p99(), e2e.p999());
        out.print(table);
        out.println();
        out.print(ceiling);
        out.printf(Locale.ROOT, "%nThroughput ceiling: %d/s sustained (the highest step that passed)%n", sustainedRate);
        load.close();
        if (fresh != null) {
            out.println(fresh);
        }
        return 0;
    }

    private KafkaTool.EndToEnd endToEnd(String runId) throws Exception {
        String topic = "bench." + runId + ".e2e";
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS).admin(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try {
                return new KafkaTool(tools).endToEndLatency(bootstrap, topic, e2eMessages, size, Duration.ofMinutes(5));
            } finally {
                admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static void row(StringBuilder table, int rate, String path, Latencies l, double rawP99, long notDecided) {
        table.append(String.format(Locale.ROOT, "| %d | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f× | %d |%n", rate, path, l.count(),
                l.percentileMillis(50), l.percentileMillis(99), l.percentileMillis(99.9), l.maxMillis(),
                l.percentileMillis(99) / rawP99, notDecided));
    }
}
