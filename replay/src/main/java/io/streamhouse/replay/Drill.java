package io.streamhouse.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.loadtests.demo.DemoTransaction;
import io.streamhouse.loadtests.demo.DemoTransactions;
import io.streamhouse.supervisor.ControlChannel;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code replay drill <scenario>}: a fault under bounded synchronous-authorize load against the local stack, then the
 * checks (exactly one decision per request, answers equal the log, projections equal a fresh rebuild, no alert id
 * twice). Loopback only: every endpoint must be 127.0.0.1, localhost or ::1. Exit 0 pass, 1 a check failed,
 * 2 bad input, 3 environment.
 */
@Command(name = "drill", mixinStandardHelpOptions = true, subcommands = {Drill.KillApi.class},
        description = "Resilience drills against the running local stack, under load, with loss and recovery checks.")
final class Drill implements Callable<Integer> {
    @CommandLine.ParentCommand
    ReplayCli parent;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ReplayCli.BAD_INPUT;
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "::1", "[::1]");

    /** @throws ReplayCli.BadInput when {@code host} is not this machine's loopback */
    static void requireLoopback(String what, String host) {
        if (host == null || !LOOPBACK.contains(host.toLowerCase(Locale.ROOT))) {
            throw new ReplayCli.BadInput("a drill only targets this machine (127.0.0.1, localhost or ::1): " + what + " is '" + host + "'");
        }
    }

    /** Hosts of a Kafka bootstrap list such as {@code 127.0.0.1:9092,[::1]:9093}. */
    static List<String> bootstrapHosts(String bootstrap) {
        List<String> hosts = new ArrayList<>();
        for (String part : bootstrap.split(",")) {
            String p = part.trim().replaceFirst("^[A-Za-z_]+://", "");
            int colon = p.lastIndexOf(':');
            hosts.add(colon > 0 ? p.substring(0, colon) : p);
        }
        return hosts;
    }

    record Recovery(long faultAtEpochMs, String faultAnswer, Long readyAfterMs, Long firstDecidedAnswerAfterMs, Long lagNormalAfterMs,
                    long lagBound) {
    }

    record Load(int ratePerSecond, int durationSeconds, long seed, long sent, long elapsedMs) {
    }

    record RebuildCheck(String shadowId, int exitCode, String result, Long divergences, String discard) {
    }

    record DrillReport(String scenario, String result, Load load, Recovery recovery, DrillChecks.Result decisions,
                       long alertsRead, List<String> repeatedAlertIds, RebuildCheck rebuild, List<String> failures) {
    }

    @Command(name = "kill-api", mixinStandardHelpOptions = true,
            description = "SIGKILL the api (both Streams apps) part-way through a bounded synchronous-authorize load, as "
                    + "./streamhouse kill api does; measure recovery; check decisions, alerts and a fresh rebuild.")
    static final class KillApi implements Callable<Integer> {
        @CommandLine.ParentCommand
        Drill drill;
        @Mixin
        ReplayCli.Stack stack;
        @Option(names = "--ingest-url", defaultValue = "http://127.0.0.1:8081", description = "ingest (default ${DEFAULT-VALUE})")
        URI ingest;
        @Option(names = "--api-url", defaultValue = "http://127.0.0.1:8082", description = "api (default ${DEFAULT-VALUE})")
        URI api;
        @Option(names = "--rate", defaultValue = "25", description = "authorizes per second, 1-50 (default ${DEFAULT-VALUE})")
        int rate;
        @Option(names = "--duration", defaultValue = "40", description = "seconds of load, 5-300 (default ${DEFAULT-VALUE})")
        int duration;
        @Option(names = "--kill-after", defaultValue = "10", description = "seconds into the load to kill the api (default ${DEFAULT-VALUE})")
        int killAfter;
        @Option(names = "--seed", description = "the generator seed (default: the time; transaction ids are drill-<seed>-<n>)")
        Long seed;
        @Option(names = "--lag-bound", defaultValue = "100", description = "lag (records, per api group) that counts as normal (default ${DEFAULT-VALUE})")
        long lagBound;
        @Option(names = "--recovery-timeout", defaultValue = "120", description = "seconds to wait for readiness and lag (default ${DEFAULT-VALUE})")
        int recoveryTimeout;
        @Option(names = "--json", description = "print the summary as JSON on stdout")
        boolean json;

        @Override
        public Integer call() throws Exception {
            if (rate < 1 || rate > 50 || duration < 5 || duration > 300 || killAfter < 1 || killAfter >= duration
                    || lagBound < 0 || recoveryTimeout < 10) {
                throw new ReplayCli.BadInput("--rate 1-50, --duration 5-300 s, --kill-after between 1 and the duration, "
                        + "--lag-bound 0 or more, --recovery-timeout at least 10 s");
            }
            requireLoopback("--ingest-url", ingest.getHost());
            requireLoopback("--api-url", api.getHost());
            Endpoints endpoints = stack.endpoints();
            for (String host : bootstrapHosts(endpoints.bootstrapServers())) {
                requireLoopback("the Kafka bootstrap server", host);
            }
            requireLoopback("the schema registry", URI.create(endpoints.registryUrl()).getHost());
            PrintStream out = drill.parent.out(), err = drill.parent.err();
            PrintStream log = json ? err : out;
            long runSeed = seed != null ? seed : System.currentTimeMillis();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            ReplayCli.Stack.requireRegistry(endpoints);
            if (status(http, api.resolve("/q/health/ready")) != 200) {
                throw new Endpoints.EnvironmentException("the api at " + api + " is not ready (/q/health/ready): start the stack first");
            }
            try (Admin admin = stack.admin(endpoints);
                 CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(endpoints.registryUrl())) {
                TopicSerdes serdes = new RegistryTopicSerdes(registry);
                List<String> groups = List.of("streamhouse-api", stack.liveServingId());
                for (String g : groups) {
                    if (!Groups.exists(admin, g)) {
                        throw new Endpoints.EnvironmentException("the api's group " + g + " is not on " + endpoints.bootstrapServers());
                    }
                }
                List<String> failures = new ArrayList<>();

                // 1-3: the load, the fault part-way, and the recovery watch.
                log.printf(Locale.ROOT, "kill-api drill: %d authorizes/s for %d s (seed %d), SIGKILL of the api after %d s%n",
                        rate, duration, runSeed, killAfter);
                List<DemoTransaction> txs = DemoTransactions.generate(runSeed, rate * duration, Instant.now()).stream()
                        .map(t -> new DemoTransaction(t.transactionId().replaceFirst("^demo-", "drill-"),
                                t.body().deepCopy().put("transactionId", t.transactionId().replaceFirst("^demo-", "drill-")), t.expected()))
                        .toList();
                Map<String, DrillChecks.Answer> answers = new ConcurrentHashMap<>();
                CountDownLatch done = new CountDownLatch(txs.size());
                long began = System.currentTimeMillis();
                long faultAt = -1;
                String faultAnswer = null;
                long periodNanos = 1_000_000_000L / rate;
                long start = System.nanoTime();
                for (int i = 0; i < txs.size(); i++) {
                    long due = start + i * periodNanos;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait); // pacing the open-loop load, not waiting for a condition
                    }
                    if (faultAt < 0 && System.nanoTime() - start >= TimeUnit.SECONDS.toNanos(killAfter)) {
                        faultAt = System.currentTimeMillis();
                        // The same request ./streamhouse kill api sends; the launcher answers once the SIGKILL is sent.
                        ControlChannel.Response r = ControlChannel.send(stack.data().resolve(ControlChannel.DIR),
                                new ControlChannel.Request("kill", "api"), Duration.ofSeconds(30));
                        if (!r.ok()) {
                            throw new Endpoints.EnvironmentException("the launcher refused 'kill api': " + r.message());
                        }
                        faultAnswer = r.message();
                        log.println("  fault at +" + (faultAt - began) + " ms: " + r.message());
                    }
                    send(http, txs.get(i), answers, done);
                }
                long loadEnd = System.currentTimeMillis();
                Recovery recovery = watchRecovery(http, admin, groups, faultAt, faultAnswer, answers, log);
                if (!done.await(60, TimeUnit.SECONDS)) {
                    failures.add("authorizes still unanswered 60 s after the load ended: " + done.getCount());
                }
                Load load = new Load(rate, duration, runSeed, txs.size(), loadEnd - began);
                if (recovery.readyAfterMs() == null) {
                    failures.add("the api was not ready again within " + recoveryTimeout + " s");
                }
                if (recovery.lagNormalAfterMs() == null) {
                    failures.add("the api's lag was not back under " + lagBound + " within " + recoveryTimeout + " s");
                }

                // 4: quiet, then the checks.
                awaitQuiet(admin, groups, Duration.ofSeconds(recoveryTimeout));
                Set<String> ids = new HashSet<>(answers.keySet());
                txs.forEach(t -> ids.add(t.transactionId()));
                TopicReader reader = new TopicReader(endpoints.bootstrapServers(), admin, Duration.ofSeconds(120));
                Map<String, List<String>> decisions = decisions(reader, serdes, ids);
                DrillChecks.Result checks = DrillChecks.check(answers.values(), decisions);
                if (!checks.passed()) {
                    failures.add("decisions: " + checks.requestErrors() + " request errors, " + checks.lost() + " lost, "
                            + checks.conflicting() + " conflicting, " + checks.answerMismatches() + " answers unlike the log");
                }
                List<String> alertIds = new ArrayList<>();
                for (Topic<String, Alert> topic : List.of(Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS, Topics.MAINTENANCE_ALERTS)) {
                    Deserializer<Alert> decoder = serdes.valueSerde(topic).deserializer();
                    reader.readAll(topic.name(), r -> {
                        try {
                            alertIds.add(decoder.deserialize(r.topic(), r.value()).getAlertId());
                        } catch (RuntimeException unreadable) {
                            // not an alert this check can judge; the topic's own consumers dead-letter it
                        }
                    });
                }
                List<String> repeated = DrillChecks.repeated(alertIds);
                if (!repeated.isEmpty()) {
                    failures.add(repeated.size() + " alert ids written more than once");
                }
                RebuildCheck rebuild = rebuild(log);
                if (rebuild.exitCode() != ReplayCli.EQUAL) {
                    failures.add("the fresh rebuild was not equal to live (exit " + rebuild.exitCode() + ", " + rebuild.result() + ")");
                }
                DrillReport report = new DrillReport("kill-api", failures.isEmpty() ? "PASS" : "FAIL", load, recovery, checks,
                        alertIds.size(), repeated.size() > 20 ? repeated.subList(0, 20) : repeated, rebuild, failures);
                if (json) {
                    out.println(Records.JSON.writeValueAsString(report));
                } else {
                    print(report, out);
                }
                return failures.isEmpty() ? ReplayCli.EQUAL : ReplayCli.DIVERGENT;
            }
        }

        private void send(HttpClient http, DemoTransaction tx, Map<String, DrillChecks.Answer> answers, CountDownLatch done) {
            long sentAt = System.currentTimeMillis();
            // Stamped now: the generator spaces payments 250 ms apart, which runs past ingest's 5-minute future limit (422).
            String payload = tx.body().deepCopy().put("occurredAt", Instant.ofEpochMilli(sentAt).toString()).toString();
            HttpRequest request = HttpRequest.newBuilder(ingest.resolve("/v1/transactions/authorize"))
                    .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(payload)).build();
            http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                long at = System.currentTimeMillis();
                DrillChecks.Answer a;
                if (e != null || r.statusCode() != 200) {
                    a = new DrillChecks.Answer(tx.transactionId(), e != null ? 0 : r.statusCode(), null, false, sentAt, at);
                } else {
                    try {
                        JsonNode body = JSON.readTree(r.body());
                        a = new DrillChecks.Answer(tx.transactionId(), 200, body.path("outcome").asText(null),
                                body.path("decided").asBoolean(false), sentAt, at);
                    } catch (Exception unreadable) {
                        a = new DrillChecks.Answer(tx.transactionId(), -1, null, false, sentAt, at);
                    }
                }
                answers.put(tx.transactionId(), a);
                done.countDown();
            });
        }

        /** From the fault: readiness 200 again, then both api groups' lag under the bound (polled, with a deadline). */
        private Recovery watchRecovery(HttpClient http, Admin admin, List<String> groups, long faultAt, String faultAnswer,
                                       Map<String, DrillChecks.Answer> answers, PrintStream log) throws InterruptedException {
            long deadline = faultAt + recoveryTimeout * 1000L;
            Long ready = null, lagNormal = null;
            while (System.currentTimeMillis() < deadline && (ready == null || lagNormal == null)) {
                if (ready == null && status(http, api.resolve("/q/health/ready")) == 200) {
                    ready = System.currentTimeMillis() - faultAt;
                    log.println("  api ready again " + ready + " ms after the fault");
                }
                if (ready != null && lagNormal == null && groups.stream().allMatch(g -> lag(admin, g) <= lagBound)) {
                    lagNormal = System.currentTimeMillis() - faultAt;
                    log.println("  api lag back under " + lagBound + " " + lagNormal + " ms after the fault");
                }
                TimeUnit.MILLISECONDS.sleep(100); // polling interval of a bounded watch
            }
            Long firstDecided = answers.values().stream().filter(a -> a.sentAtMillis() >= faultAt && a.decided())
                    .map(a -> a.answeredAtMillis() - faultAt).min(Long::compare).orElse(null);
            return new Recovery(faultAt, faultAnswer, ready, firstDecided, lagNormal, lagBound);
        }

        private static long lag(Admin admin, String group) {
            Map<TopicPartition, Long> committed = Groups.committed(admin, group);
            Set<String> topics = new HashSet<>();
            committed.keySet().forEach(tp -> topics.add(tp.topic()));
            Map<TopicPartition, Long> ends = Groups.ends(admin, topics);
            long lag = 0;
            for (var e : committed.entrySet()) {
                lag += Math.max(0, ends.getOrDefault(e.getKey(), e.getValue()) - e.getValue());
            }
            return lag;
        }

        /** The load has ended: wait until both groups have consumed (almost) everything, so the checks see the end state. */
        private void awaitQuiet(Admin admin, List<String> groups, Duration timeout) throws InterruptedException {
            long until = System.currentTimeMillis() + timeout.toMillis();
            while (System.currentTimeMillis() < until) {
                // A transaction marker after the last committed record can leave one offset per partition.
                if (groups.stream().allMatch(g -> lag(admin, g) <= 20)) {
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(250);
            }
            throw new Endpoints.EnvironmentException("the api did not catch up within " + timeout.toSeconds() + " s after the load");
        }

        private static Map<String, List<String>> decisions(TopicReader reader, TopicSerdes serdes, Set<String> ids) {
            Deserializer<TransactionDecision> decoder = serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer();
            Map<String, List<String>> byId = new LinkedHashMap<>();
            reader.readAll(Topics.TRANSACTION_DECISIONS.name(), r -> {
                TransactionDecision d;
                try {
                    d = decoder.deserialize(r.topic(), r.value());
                } catch (RuntimeException unreadable) {
                    return;
                }
                if (ids.contains(d.getTransactionId())) {
                    byId.computeIfAbsent(d.getTransactionId(), k -> new ArrayList<>()).add(d.getOutcome().name());
                }
            });
            return byId;
        }

        /** Reuses {@code replay rebuild all} into a shadow, then discards the shadow. */
        private RebuildCheck rebuild(PrintStream log) throws Exception {
            String shadowId = "drill-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
            List<String> common = new ArrayList<>(List.of("--data", stack.data().toString()));
            if (stack.bootstrap != null) {
                common.addAll(List.of("--bootstrap-servers", stack.bootstrap));
            }
            if (stack.registry != null) {
                common.addAll(List.of("--registry-url", stack.registry));
            }
            log.println("  rebuilding all into shadow " + shadowId + " and comparing with live ...");
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            List<String> args = new ArrayList<>(List.of("rebuild", "all", "--id", shadowId, "--json"));
            args.addAll(common);
            int code = ReplayCli.run(args.toArray(String[]::new), new PrintStream(captured, true, StandardCharsets.UTF_8), log);
            String result = null;
            Long divergences = null;
            try {
                JsonNode summary = JSON.readTree(captured.toString(StandardCharsets.UTF_8));
                result = summary.path("result").asText(null);
                divergences = summary.path("divergences").isNumber() ? summary.path("divergences").asLong() : null;
            } catch (Exception noSummary) {
                result = "no summary (exit " + code + ")";
            }
            List<String> discardArgs = new ArrayList<>(List.of("discard", shadowId));
            discardArgs.addAll(common);
            ByteArrayOutputStream discardOut = new ByteArrayOutputStream();
            int discarded = ReplayCli.run(discardArgs.toArray(String[]::new), new PrintStream(discardOut, true, StandardCharsets.UTF_8), log);
            return new RebuildCheck(shadowId, code, result, divergences,
                    discarded == 0 ? discardOut.toString(StandardCharsets.UTF_8).strip() : "discard failed (exit " + discarded + ")");
        }

        private static int status(HttpClient http, URI uri) {
            try {
                return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (java.io.IOException e) {
                return 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }

        private static void print(DrillReport r, PrintStream out) {
            Load l = r.load();
            Recovery v = r.recovery();
            DrillChecks.Result d = r.decisions();
            out.printf(Locale.ROOT, "Load: %,d authorizes at %d/s over %.1f s (seed %d)%n", l.sent(), l.ratePerSecond(), l.elapsedMs() / 1000.0, l.seed());
            out.printf(Locale.ROOT, "Recovery from the SIGKILL: ready again after %s, first decided authorize after %s, lag under %d after %s%n",
                    ms(v.readyAfterMs()), ms(v.firstDecidedAnswerAfterMs()), v.lagBound(), ms(v.lagNormalAfterMs()));
            out.printf(Locale.ROOT, "Answers: %,d answered (%,d decided, %,d fallbacks), %d request errors%n",
                    d.answered(), d.decided(), d.fallbacks(), d.requestErrors());
            out.printf(Locale.ROOT, "Decisions on the log: %d lost, %d conflicting, %d identical duplicates; %d answers unlike the log%n",
                    d.lost(), d.conflicting(), d.identicalDuplicates(), d.answerMismatches());
            d.examples().forEach((check, ids) -> out.println("  " + check + ": " + ids));
            out.printf(Locale.ROOT, "Alerts: %,d read, %d ids written more than once%s%n", r.alertsRead(), r.repeatedAlertIds().size(),
                    r.repeatedAlertIds().isEmpty() ? "" : " " + r.repeatedAlertIds());
            out.printf(Locale.ROOT, "Rebuild: %s (%s divergences, exit %d), shadow %s; %s%n", r.rebuild().result(),
                    r.rebuild().divergences(), r.rebuild().exitCode(), r.rebuild().shadowId(), r.rebuild().discard());
            r.failures().forEach(f -> out.println("FAILED: " + f));
            out.println("Result: " + r.result());
        }

        private static String ms(Long millis) {
            return millis == null ? "never (timeout)" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
    }
}
