package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.topic.ConnectNames;
import io.streamhouse.detection.cep.RetainedCheckpoints;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.lake.LakeAudit;
import io.streamhouse.loadtests.bench.KafkaTool;
import io.streamhouse.loadtests.demo.DemoTransaction;
import io.streamhouse.loadtests.demo.DemoTransactions;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.ControlChannel;
import io.streamhouse.control.StatusFile;
import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;
import io.streamhouse.replay.Endpoints;
import io.streamhouse.replay.Groups;
import io.streamhouse.replay.Records;
import io.streamhouse.replay.ReplayCli;
import io.streamhouse.replay.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.serialization.Deserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code replay drill <scenario>}: one fault under bounded load against the local stack, then the checks. The load is
 * open-loop synchronous authorizes plus asynchronous generator traffic (vehicle telemetry, parcel scans), all through
 * ingest. The fault goes through the launcher's control channel ({@code <data>/control}), as {@code ./streamhouse
 * kill|restart|stop|start} does. Recovery is measured from the fault: until the faulted component serves again, until
 * the first decided authorize, and until the lag of the groups it feeds is back under a bound. The checks: every
 * authorize has exactly one outcome on the log and the answers equal it; every accepted asynchronous event is on its
 * topic; no alert id twice; the projections equal a fresh rebuild; Iceberg equals Kafka when the lake runs; for
 * {@code kill-cep}, the job resumed from its newest retained checkpoint. Loopback only: every endpoint must be
 * 127.0.0.1, localhost or ::1. Exit 0 pass, 1 a check failed, 2 bad input, 3 environment.
 */
@Command(name = "drill", mixinStandardHelpOptions = true,
        subcommands = {Drill.KillApi.class, Drill.WipeApiState.class, Drill.RestartBroker.class, Drill.KillConnect.class,
                Drill.KillCep.class, BurstDrill.class},
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
    /** The asynchronous load's ceiling: ingest on this 2-core machine, beside the whole stack, answers well below it. */
    static final int MAX_ASYNC_RATE = 5000;
    static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "::1", "[::1]");
    /** The CEP job's consumer group and transactional-id prefix ({@code CepOptions}' default, which the launcher keeps). */
    static final String CEP_GROUP = "streamhouse-cep";
    static final String CEP_LOG = "cep.log";
    /** The first api instance's log, whose state directory (<data>/api-state) wipe-api-state wipes. */
    static final String API_LOG = "api.log";
    /** What {@code CepMain} prints when it resumes from a retained checkpoint. */
    static final Pattern RESUMED = Pattern.compile("\\[streamhouse-cep] resuming from (\\S+)");

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

    /** The faults, each on one supervised component. */
    enum Scenario {
        KILL_API("kill-api", "api"), WIPE_API_STATE("wipe-api-state", "api"), RESTART_BROKER("restart-broker", "broker"),
        KILL_CONNECT("kill-connect", "connect"), KILL_CEP("kill-cep", "cep");

        final String label;
        final String component;

        Scenario(String label, String component) {
            this.label = label;
            this.component = component;
        }

        boolean onApi() {
            return component.equals("api");
        }
    }

    /**
     * @param componentBackAfterMs the faulted component serving again: the api's readiness 200, else the supervisor
     *                             reporting it running in a new process (the broker: the restart answered)
     * @param lagGroups            the consumer groups whose lag is watched: the ones the faulted component feeds
     */
    record Recovery(long faultAtEpochMs, List<String> faultAnswers, Long componentBackAfterMs, Long firstDecidedAnswerAfterMs,
                    Long lagNormalAfterMs, long lagBound, List<String> lagGroups, Long answeringAgainAfterMs,
                    String answeringAgainMeans, Answering answering) {
    }

    /**
     * kill-api with more than one api instance: lookups of {@code key} (a key {@code killed} owned before the fault)
     * through {@code through}, polled every 100 ms from the fault ({@link AnsweringAgain}).
     */
    record Answering(String killed, String through, String lookup, AnsweringAgain.Result result, String note) {
    }

    /** What {@code answeringAgainAfterMs} is, in the report: the figure the 10 s goal of issue #22 is about. */
    static final String ONE_INSTANCE_MEANS = "the api's /q/health/ready 200 again (one instance: nothing else answers while it is down)";
    static final String INSTANCES_MEANS = "a lookup of a key the killed instance owned answered 200 through a surviving instance";

    /**
     * {@code asyncSentPerSecond}, {@code asyncAcknowledgedPerSecond}, {@code asyncResent}: what the asynchronous load
     * reached ({@link AsyncLoad.Reached}).
     */
    record Load(int ratePerSecond, int asyncRatePerSecond, int durationSeconds, long seed, long authorizesSent, long asyncSent,
                long elapsedMs, double asyncSentPerSecond, double asyncAcknowledgedPerSecond, long asyncResent) {
    }

    /** {@code details}: where the rebuild's whole summary (every divergent key with both values) was kept, if it was not EQUAL. */
    record RebuildCheck(String shadowId, int exitCode, String result, Long divergences, String discard, String details) {
    }

    record LakeCheck(boolean ran, Boolean equal, long missing, long extra, long duplicateRows, List<LakeAudit.TopicAudit> tables,
                     String note) {
    }

    record CepCheck(String newestCheckpointAtKill, String resumedFrom, boolean passed) {
    }

    /**
     * The wiped api's restore against Kafka's ConsumerPerformance on the same changelog topics, same run. Streams' own
     * restore comes from the api's {@code StreamsTimeline} lines: the records both applications restored and the span
     * from the first store partition's restore start to the last one's end ({@code restore}; null when the log held no
     * such line). {@code startReadyMs}, the supervisor's start until ready (JVM start, group join and restore), is kept
     * beside it.
     */
    record RestoreCheck(List<String> changelogs, long changelogRecords, long startReadyMs, RestoreTimeline.Restore restore,
                        Double restoreRecordsPerSec, double consumerPerfFetchRecordsPerSec, Double ratio, String note) {
    }

    record DrillReport(String scenario, String result, Load load, Recovery recovery, DrillChecks.Result decisions,
                       DrillChecks.Delivery async, long alertsRead, List<String> repeatedAlertIds, RebuildCheck rebuild, LakeCheck lake,
                       CepCheck cep, RestoreCheck restore, String loadAverage, List<String> failures) {
    }

    @Command(name = "kill-api", mixinStandardHelpOptions = true,
            description = "SIGKILL the api (both Streams apps) part-way through the load, as ./streamhouse kill api does.")
    static final class KillApi extends Run {
        KillApi() {
            super(Scenario.KILL_API);
        }
    }

    @Command(name = "wipe-api-state", mixinStandardHelpOptions = true,
            description = "Stop the api, delete its state directory (<data>/api-state), start it: it restores every store "
                    + "from its changelogs. Also measures the restore against Kafka's ConsumerPerformance on the same topics.")
    static final class WipeApiState extends Run {
        WipeApiState() {
            super(Scenario.WIPE_API_STATE);
        }
    }

    @Command(name = "restart-broker", mixinStandardHelpOptions = true,
            description = "Restart the Kafka broker (stop, start on the same port and log) part-way through the load.")
    static final class RestartBroker extends Run {
        RestartBroker() {
            super(Scenario.RESTART_BROKER);
        }
    }

    @Command(name = "kill-connect", mixinStandardHelpOptions = true,
            description = "SIGKILL the Kafka Connect worker (the Iceberg sink, CDC) part-way through the load; check Iceberg equals Kafka.")
    static final class KillConnect extends Run {
        KillConnect() {
            super(Scenario.KILL_CONNECT);
        }
    }

    @Command(name = "kill-cep", mixinStandardHelpOptions = true,
            description = "SIGKILL the Flink CEP job part-way through the load; the supervisor restarts it from its newest "
                    + "retained checkpoint, which the drill verifies.")
    static final class KillCep extends Run {
        KillCep() {
            super(Scenario.KILL_CEP);
        }
    }

    /** One drill run: the options every scenario shares, the load, the fault, the recovery watch and the checks. */
    abstract static class Run implements Callable<Integer> {
        @CommandLine.ParentCommand
        Drill drill;
        @Mixin
        ReplayCli.Stack stack;
        @Option(names = "--ingest-url", description = "ingest (default: the stack's, from <data>/endpoints.properties, else http://127.0.0.1:8081)")
        URI ingest;
        @Option(names = "--api-url", description = "the api instance faulted and watched (default: instance 1, from "
                + "<data>/endpoints.properties, else http://127.0.0.1:8082)")
        URI api;
        @Option(names = "--rate", defaultValue = "25", description = "authorizes per second, 1-50 (default ${DEFAULT-VALUE})")
        int rate;
        @Option(names = "--async-rate", defaultValue = "1000",
                description = "telemetry readings and parcel scans per second, 0-" + MAX_ASYNC_RATE + " (default ${DEFAULT-VALUE})")
        int asyncRate;
        @Option(names = "--duration", defaultValue = "40", description = "seconds of load, 5-300 (default ${DEFAULT-VALUE})")
        int duration;
        @Option(names = {"--fault-after", "--kill-after"}, defaultValue = "10",
                description = "seconds into the load to inject the fault (default ${DEFAULT-VALUE})")
        int faultAfter;
        @Option(names = "--seed", description = "the generator seed (default: the time; transaction ids are drill-<seed>-<n>)")
        Long seed;
        @Option(names = "--lag-bound", defaultValue = "100", description = "lag (records, per watched group) that counts as normal (default ${DEFAULT-VALUE})")
        long lagBound;
        @Option(names = "--recovery-timeout", defaultValue = "120", description = "seconds to wait for recovery and lag (default ${DEFAULT-VALUE})")
        int recoveryTimeout;
        @Option(names = "--kafka-tools", defaultValue = "load-tests/target",
                description = "directory with kafka-tools.classpath, for wipe-api-state's ConsumerPerformance baseline (default ${DEFAULT-VALUE})")
        Path kafkaTools;
        @Option(names = "--json", description = "print the summary as JSON on stdout")
        boolean json;

        private final Scenario scenario;

        Run(Scenario scenario) {
            this.scenario = scenario;
        }

        @Override
        public Integer call() throws Exception {
            if (rate < 1 || rate > 50 || asyncRate < 0 || asyncRate > MAX_ASYNC_RATE || duration < 5 || duration > 300 || faultAfter < 1
                    || faultAfter >= duration || lagBound < 0 || recoveryTimeout < 10) {
                throw new ReplayCli.BadInput("--rate 1-50, --async-rate 0-" + MAX_ASYNC_RATE + ", --duration 5-300 s, --fault-after between 1 and "
                        + "the duration, --lag-bound 0 or more, --recovery-timeout at least 10 s");
            }
            ApiInstances instances = ApiInstances.read(stack.data());
            if (ingest == null) {
                ingest = instances.ingest().orElse(URI.create("http://127.0.0.1:8081"));
            }
            if (api == null) {
                api = instances.instance("api").map(ApiInstances.Instance::url).orElse(URI.create("http://127.0.0.1:8082"));
            }
            requireLoopback("--ingest-url", ingest.getHost());
            requireLoopback("--api-url", api.getHost());
            // kill-api on a stack of several instances: instance 1 is killed, the first other one must answer its keys.
            Optional<ApiInstances.Instance> killed = instances.instance("api").filter(i -> scenario == Scenario.KILL_API);
            Optional<ApiInstances.Instance> through = killed.flatMap(k -> instances.survivors(k.component()).stream().findFirst());
            if (through.isPresent()) {
                requireLoopback("api instance " + through.get().component(), through.get().url().getHost());
            }
            Endpoints endpoints = stack.endpoints();
            for (String host : bootstrapHosts(endpoints.bootstrapServers())) {
                requireLoopback("the Kafka bootstrap server", host);
            }
            requireLoopback("the schema registry", URI.create(endpoints.registryUrl()).getHost());
            PrintStream out = drill.parent.out(), err = drill.parent.err();
            PrintStream log = json ? err : out;
            long runSeed = seed != null ? seed : System.currentTimeMillis();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            // The drill's traffic goes in as the stack's development payments and device callers.
            paymentsToken = StackTokens.read(stack.data(), Roles.PAYMENTS);
            deviceToken = StackTokens.read(stack.data(), Roles.DEVICE);
            opsToken = through.isPresent() ? StackTokens.read(stack.data(), Roles.OPS) : null;
            ReplayCli.Stack.requireRegistry(endpoints);
            if (status(http, api.resolve("/q/health/ready")) != 200) {
                throw new Endpoints.EnvironmentException("the api at " + api + " is not ready (/q/health/ready): start the stack first");
            }
            if (through.isPresent() && status(http, through.get().url().resolve("/q/health/ready")) != 200) {
                throw new Endpoints.EnvironmentException("api instance " + through.get().component() + " at " + through.get().url()
                        + " is not ready (/q/health/ready): ./streamhouse status");
            }
            ChildStatus before = component(scenario.component).orElseThrow(() -> new Endpoints.EnvironmentException(
                    "this stack runs no " + scenario.component + " (" + stack.data().resolve(StatusFile.NAME) + "): start it with that part"));
            if (before.state() != ChildState.RUNNING) {
                throw new Endpoints.EnvironmentException(scenario.component + " is " + before.state().label() + ", not running: ./streamhouse status");
            }
            try (Admin admin = stack.admin(endpoints);
                 CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(endpoints.registryUrl())) {
                TopicSerdes serdes = new RegistryTopicSerdes(registry);
                List<String> apiGroups = List.of("streamhouse-api", stack.liveServingId());
                for (String g : apiGroups) {
                    if (!Groups.exists(admin, g)) {
                        throw new Endpoints.EnvironmentException("the api's group " + g + " is not on " + endpoints.bootstrapServers());
                    }
                }
                boolean lakeRuns = DrillSteps.hasMembers(admin, ConnectNames.LAKE_GROUP);
                List<String> lagGroups = switch (scenario) {
                    case KILL_API, WIPE_API_STATE -> apiGroups;
                    case KILL_CEP -> List.of(CEP_GROUP);
                    case KILL_CONNECT -> List.of(ConnectNames.LAKE_GROUP);
                    case RESTART_BROKER -> {
                        List<String> all = new ArrayList<>(apiGroups);
                        if (Groups.exists(admin, CEP_GROUP)) {
                            all.add(CEP_GROUP);
                        }
                        if (lakeRuns) {
                            all.add(ConnectNames.LAKE_GROUP);
                        }
                        yield all;
                    }
                };
                if (scenario == Scenario.KILL_CONNECT && !lakeRuns) {
                    throw new Endpoints.EnvironmentException("the lake's sink (group " + ConnectNames.LAKE_GROUP
                            + ") has no members: kill-connect checks Iceberg against Kafka, start the stack with the lake");
                }
                if (scenario == Scenario.KILL_CEP && !Groups.exists(admin, CEP_GROUP)) {
                    throw new Endpoints.EnvironmentException("the CEP job's group " + CEP_GROUP + " is not on " + endpoints.bootstrapServers());
                }
                List<String> failures = new ArrayList<>();

                // 1-3: the load, the fault part-way (its own thread: stop/start/restart answer only once done), the watch.
                log.printf(Locale.ROOT, "%s drill: %d authorizes/s and %d telemetry readings + parcel scans/s for %d s (seed %d), "
                        + "the fault after %d s%n", scenario.label, rate, asyncRate, duration, runSeed, faultAfter);
                List<DemoTransaction> txs = DemoTransactions.generate(runSeed, rate * duration, Instant.now()).stream()
                        .map(t -> new DemoTransaction(t.transactionId().replaceFirst("^demo-", "drill-"),
                                t.body().deepCopy().put("transactionId", t.transactionId().replaceFirst("^demo-", "drill-")), t.expected()))
                        .toList();
                List<GeneratedEvent> asyncEvents = AsyncLoad.events(runSeed, asyncRate * duration);
                Map<String, DrillChecks.Answer> answers = new ConcurrentHashMap<>();
                Map<String, Integer> asyncStatus = new ConcurrentHashMap<>();
                CountDownLatch done = new CountDownLatch(txs.size() + asyncEvents.size());
                long began = System.currentTimeMillis();
                long start = System.nanoTime();
                // The generator's calendar scaled onto SPEED times the load's duration, ending when the load ends: fast
                // enough for the CEP job's watermark to pass its bound, slow enough for a restored job's catch-up to
                // stay within the patterns' retention (EventClock).
                // The span ends TICK_LEAD before the load does; the closing ticks, stamped when the load ends, then move
                // the CEP job's watermark past every event of the load (the generator plants its anomalies last).
                EventClock clock = EventClock.onto(asyncEvents,
                        Instant.ofEpochMilli(began).plusSeconds(duration).minus(EventClock.TICK_LEAD),
                        Duration.ofSeconds((long) duration * EventClock.SPEED));
                AsyncLoad asyncSender = AsyncLoad.overHttp(asyncEvents, http, ingest, deviceToken, clock, asyncStatus, done);
                CompletableFuture<AsyncLoad.Reached> asyncLoad = CompletableFuture.supplyAsync(() -> asyncSender.run(start, asyncRate));
                FaultRun fault = new FaultRun(log, began);
                CompletableFuture<Recovery> recovery = null;
                for (int i = 0; i < txs.size(); i++) {
                    waitUntil(start + i * (1_000_000_000L / rate));
                    if (recovery == null && System.nanoTime() - start >= TimeUnit.SECONDS.toNanos(faultAfter)) {
                        if (through.isPresent()) {
                            // First a key the instance to be killed owns (a few lookups through the survivor), then the fault.
                            ApiInstances.Instance k = killed.get(), t = through.get();
                            recovery = CompletableFuture.supplyAsync(() -> {
                                Optional<String> lookup = ownedLookup(http, asyncEvents, asyncStatus, k, t, log);
                                fault.start();
                                CompletableFuture<Answering> answering = CompletableFuture.supplyAsync(() -> watchAnswering(http, fault, k, t, lookup, log));
                                return watchRecovery(http, admin, lagGroups, fault, before, answers, log, answering);
                            });
                        } else {
                            fault.start();
                            recovery = CompletableFuture.supplyAsync(() -> watchRecovery(http, admin, lagGroups, fault, before, answers, log, null));
                        }
                    }
                    send(http, txs.get(i), answers, done);
                }
                AsyncLoad.Reached asyncSent = asyncLoad.join();
                if (!asyncEvents.isEmpty()) {
                    log.printf(Locale.ROOT, "  closing event-time ticks: %s%n", closingTicks(http, runSeed));
                }
                long loadEnd = System.currentTimeMillis();
                fault.awaitDone(Duration.ofSeconds(recoveryTimeout + 60L));
                Recovery rec = recovery.join();
                if (fault.error != null) {
                    failures.add("the fault did not go as asked: " + fault.error);
                }
                if (!done.await(60, TimeUnit.SECONDS)) {
                    failures.add("requests still unanswered 60 s after the load ended: " + done.getCount());
                }
                AsyncLoad.Reached reached = asyncSender.reached(asyncSent);
                Load load = new Load(rate, asyncRate, duration, runSeed, txs.size(), asyncEvents.size(), loadEnd - began,
                        reached.sentPerSecond(), reached.acknowledgedPerSecond(), reached.resent());
                if (rec.componentBackAfterMs() == null) {
                    failures.add(scenario.component + " was not serving again within " + recoveryTimeout + " s");
                }
                if (rec.answering() != null && rec.answering().lookup() != null && rec.answeringAgainAfterMs() == null) {
                    failures.add(rec.answering().lookup() + ", owned by the killed " + rec.answering().killed() + ", got no 200 through "
                            + rec.answering().through() + " within " + recoveryTimeout + " s");
                }
                if (rec.lagNormalAfterMs() == null) {
                    failures.add("the lag of " + lagGroups + " was not back under " + lagBound + " within " + recoveryTimeout + " s");
                }

                // 4: quiet, then the checks.
                DrillSteps.awaitQuiet(admin, DrillChecks.quietGroups(
                        Groups.exists(admin, CEP_GROUP) ? List.of(CEP_GROUP) : List.of(), lagGroups, apiGroups),
                        Duration.ofSeconds(recoveryTimeout));
                Set<String> ids = new HashSet<>(answers.keySet());
                txs.forEach(t -> ids.add(t.transactionId()));
                TopicReader reader = new TopicReader(endpoints.bootstrapServers(), admin, Duration.ofSeconds(120));
                DrillChecks.Result checks = DrillChecks.check(txs.stream().map(DemoTransaction::transactionId).toList(), answers.values(),
                        awaitDecisions(reader, serdes, ids, answers.values(), Duration.ofSeconds(recoveryTimeout)));
                if (!checks.passed()) {
                    failures.add("decisions: " + checks.requestErrors() + " request errors (neither a decision nor a refusal), "
                            + checks.lost() + " lost, " + checks.conflicting() + " conflicting, " + checks.answerMismatches()
                            + " answers unlike the log");
                }
                DrillChecks.Delivery async = asyncCheck(reader, serdes, asyncEvents, asyncStatus);
                if (!async.passed()) {
                    failures.add("asynchronous events: " + async.refused() + " refused, " + async.lost() + " accepted but not on their topic, "
                            + async.duplicated() + " on their topic twice");
                }
                List<String> alertIds = DrillSteps.alertIds(reader, serdes);
                List<String> repeated = DrillChecks.repeated(alertIds);
                if (!repeated.isEmpty()) {
                    failures.add(repeated.size() + " alert ids written more than once");
                }
                CepCheck cep = null;
                if (scenario == Scenario.KILL_CEP) {
                    cep = cepCheck(fault.newestCheckpointAtKill, fault.cepLogOffset);
                    if (!cep.passed()) {
                        failures.add("the CEP job did not resume from its newest retained checkpoint (" + cep.newestCheckpointAtKill()
                                + "), but from " + cep.resumedFrom());
                    }
                }
                RestoreCheck restore = null;
                if (scenario == Scenario.WIPE_API_STATE && fault.error == null) {
                    restore = restoreCheck(admin, reader, apiGroups, fault, endpoints.bootstrapServers(), log);
                }
                RebuildCheck rebuild = DrillSteps.rebuild(stack, Groups.exists(admin, CEP_GROUP), log);
                if (rebuild.exitCode() != ReplayCli.EQUAL) {
                    failures.add("the fresh rebuild was not equal to live (exit " + rebuild.exitCode() + ", " + rebuild.result() + ")");
                }
                LakeCheck lake = DrillSteps.lakeCheck(stack, lakeRuns, endpoints.bootstrapServers(), recoveryTimeout, log);
                if (Boolean.FALSE.equals(lake.equal())) {
                    failures.add("Iceberg is not equal to Kafka: " + lake.missing() + " records missing, " + lake.extra() + " rows extra, "
                            + lake.duplicateRows() + " rows twice");
                }
                DrillReport report = new DrillReport(scenario.label, failures.isEmpty() ? "PASS" : "FAIL", load, rec, checks, async,
                        alertIds.size(), repeated.size() > 20 ? repeated.subList(0, 20) : repeated, rebuild, lake, cep, restore,
                        DrillSteps.loadAverage(), failures);
                if (json) {
                    out.println(Records.JSON.writeValueAsString(report));
                } else {
                    print(report, out);
                }
                return failures.isEmpty() ? ReplayCli.EQUAL : ReplayCli.DIVERGENT;
            }
        }

        // ------------------------------------------------------------------ the fault

        /** The fault, run on its own thread; {@link #down} completes once the component is down (or the restart began). */
        final class FaultRun {
            final PrintStream log;
            final long began;
            final CountDownLatch down = new CountDownLatch(1);
            final CountDownLatch finished = new CountDownLatch(1);
            final List<String> answers = new ArrayList<>();
            volatile long faultAt = -1;
            /** When the component was down (killed, stopped) or its restart began: authorizes sent after it test the recovery. */
            volatile long downAt = -1;
            volatile Long startReadyMs;
            /** Streams' own restore after the wipe, read from the restarted api's log. */
            volatile RestoreTimeline.Restore restore;
            volatile Long backAt;
            volatile String newestCheckpointAtKill;
            volatile long cepLogOffset;
            volatile String error;

            FaultRun(PrintStream log, long began) {
                this.log = log;
                this.began = began;
            }

            void start() {
                cepLogOffset = size(stack.data().resolve("logs").resolve(CEP_LOG));
                faultAt = System.currentTimeMillis();
                Thread t = new Thread(() -> {
                    try {
                        run();
                    } catch (RuntimeException | IOException | LinkageError e) {
                        error = e.toString();
                        log.println("  fault failed: " + e.getMessage());
                    } finally {
                        down.countDown();
                        finished.countDown();
                    }
                }, "drill-fault");
                t.setDaemon(true);
                t.start();
            }

            private void run() throws IOException {
                String c = scenario.component;
                switch (scenario) {
                    case KILL_API, KILL_CONNECT, KILL_CEP -> {
                        // The same request ./streamhouse kill <component> sends; the launcher answers once the SIGKILL is sent.
                        answer("kill", c, Duration.ofSeconds(30));
                        downAt = System.currentTimeMillis();
                        if (scenario == Scenario.KILL_CEP) {
                            // The dead job writes no more: its newest retained checkpoint is now fixed.
                            newestCheckpointAtKill = RetainedCheckpoints.newest(stack.data().resolve("cep/checkpoints").toString()).orElse(null);
                        }
                        down.countDown();
                    }
                    case WIPE_API_STATE -> {
                        answer("stop", c, Duration.ofSeconds(60));
                        downAt = System.currentTimeMillis();
                        down.countDown();
                        Path state = stack.data().resolve("api-state");
                        long files = wipe(state);
                        log.println("  wiped " + state + " (" + files + " files and directories)");
                        Path apiLog = stack.data().resolve("logs").resolve(API_LOG);
                        long apiLogOffset = size(apiLog);
                        String started = answer("start", c, Duration.ofSeconds(180));
                        Matcher m = Pattern.compile("ready in (\\d+) ms").matcher(started);
                        startReadyMs = m.find() ? Long.parseLong(m.group(1)) : null;
                        restore = awaitRestoreLines(apiLog, apiLogOffset, Duration.ofSeconds(15));
                    }
                    case RESTART_BROKER -> {
                        // No moment at which it is down is reported: the restart request starts the outage.
                        downAt = faultAt;
                        down.countDown();
                        answer("restart", c, Duration.ofSeconds(180));
                        backAt = System.currentTimeMillis();
                    }
                }
            }

            private String answer(String action, String component, Duration timeout) {
                ControlChannel.Response r = ControlChannel.send(stack.data().resolve(ControlChannel.DIR),
                        new ControlChannel.Request(action, component), timeout);
                long at = System.currentTimeMillis();
                if (!r.ok()) {
                    throw new Endpoints.EnvironmentException("the launcher refused '" + action + " " + component + "': " + r.message());
                }
                synchronized (answers) {
                    answers.add(r.message());
                }
                log.println("  " + action + " " + component + " at +" + (faultAt - began) + " ms, answered after " + (at - faultAt) + " ms: " + r.message());
                return r.message();
            }

            void awaitDone(Duration timeout) throws InterruptedException {
                if (!finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    error = "the fault's requests were not answered within " + timeout.toSeconds() + " s";
                }
            }

            List<String> answers() {
                synchronized (answers) {
                    return List.copyOf(answers);
                }
            }
        }

        /** Deletes everything under {@code dir} (kept itself); refuses a directory outside the stack's data directory. */
        private long wipe(Path dir) throws IOException {
            Path data = stack.data().toRealPath();
            if (!Files.isDirectory(dir)) {
                throw new Endpoints.EnvironmentException("no api state directory at " + dir);
            }
            Path real = dir.toRealPath();
            if (!real.startsWith(data) || real.equals(data)) {
                throw new ReplayCli.BadInput("refusing to wipe " + real + ": not inside the stack's data directory " + data);
            }
            long n = 0;
            try (Stream<Path> all = Files.walk(real)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    if (!p.equals(real)) {
                        Files.delete(p);
                        n++;
                    }
                }
            }
            return n;
        }

        // ------------------------------------------------------------------ the load

        private static void waitUntil(long dueNanos) throws InterruptedException {
            long wait = dueNanos - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait); // pacing the open-loop load, not waiting for a condition
            }
        }

        private String paymentsToken;
        private String deviceToken;
        private String opsToken;

        /**
         * One cool reading of a tick vehicle per partition of the telemetry topic, stamped now: the partitions' event
         * time passes the load's last event by {@link EventClock#TICK_LEAD}, more than the CEP job's out-of-orderness
         * bound, so live and the rebuild both evaluate every reading of the load (the patterns' watermark is the
         * minimum over the partitions). The vehicle ids are chosen by Kafka's default partitioner (murmur2 of the key).
         */
        private String closingTicks(HttpClient http, long seed) {
            Instant now = Instant.now();
            List<String> vehicles = EventClock.tickVehicles(seed, Topics.VEHICLE_TELEMETRY.partitions());
            int accepted = 0;
            for (String vehicle : vehicles) {
                ObjectNode body = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()
                        .put("vehicleId", vehicle).put("occurredAt", now.toString()).put("speedKmh", 0)
                        .put("coolantTempC", 20).put("odometerKm", 0);
                body.putObject("position").put("lat", 52.0).put("lon", 4.3);
                HttpRequest request = HttpRequest.newBuilder(ingest.resolve("/v1/telemetry")).timeout(Duration.ofSeconds(15))
                        .header("Content-Type", "application/json").header("Authorization", "Bearer " + deviceToken)
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
                try {
                    int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                    accepted += status / 100 == 2 ? 1 : 0;
                } catch (IOException e) {
                    // told below: fewer ticks accepted than partitions
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return accepted + " of " + vehicles.size() + " readings at " + now + " accepted"
                    + (accepted < vehicles.size() ? " (the CEP job may not evaluate the load's last readings)" : "");
        }

        private void send(HttpClient http, DemoTransaction tx, Map<String, DrillChecks.Answer> answers, CountDownLatch done) {
            long sentAt = System.currentTimeMillis();
            // Stamped now: the generator spaces payments 250 ms apart, which runs past ingest's 5-minute future limit (422).
            String payload = tx.body().deepCopy().put("occurredAt", Instant.ofEpochMilli(sentAt).toString()).toString();
            HttpRequest request = HttpRequest.newBuilder(ingest.resolve("/v1/transactions/authorize"))
                    .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + paymentsToken)
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

        // ------------------------------------------------------------------ recovery

        /**
         * From the fault, polled every 100 ms until the deadline: the component serving again, then the watched groups'
         * lag under the bound. Runs beside the load, so a recovery inside the load is timed when it happens.
         */
        private Recovery watchRecovery(HttpClient http, Admin admin, List<String> groups, FaultRun fault, ChildStatus before,
                                       Map<String, DrillChecks.Answer> answers, PrintStream log, CompletableFuture<Answering> answeringWatch) {
            long faultAt = fault.faultAt;
            long deadline = faultAt + recoveryTimeout * 1000L;
            Long back = null, lagNormal = null;
            try {
                fault.down.await(recoveryTimeout, TimeUnit.SECONDS);
                while (System.currentTimeMillis() < deadline && (back == null || lagNormal == null) && fault.error == null) {
                    if (back == null && serving(http, fault, before)) {
                        back = System.currentTimeMillis() - faultAt;
                        log.println("  " + scenario.component + " serving again " + back + " ms after the fault");
                    }
                    if (back != null && lagNormal == null && groups.stream().allMatch(g -> DrillSteps.lag(admin, g) <= lagBound)) {
                        lagNormal = System.currentTimeMillis() - faultAt;
                        log.println("  lag of " + groups + " back under " + lagBound + " " + lagNormal + " ms after the fault");
                    }
                    TimeUnit.MILLISECONDS.sleep(100); // polling interval of a bounded watch
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // Sent once the component was down: a stop takes seconds, and the api answers until it has stopped.
            long downAt = fault.downAt > 0 ? fault.downAt : faultAt;
            Long firstDecided = answers.values().stream().filter(a -> a.sentAtMillis() >= downAt && a.decided())
                    .map(a -> a.answeredAtMillis() - faultAt).min(Long::compare).orElse(null);
            Answering answering = answeringWatch == null ? null : answeringWatch.join();
            Long answeringAgain = answering != null ? answering.result().answeringAgainAfterMs() : scenario == Scenario.KILL_API ? back : null;
            String means = answering != null ? INSTANCES_MEANS : scenario == Scenario.KILL_API ? ONE_INSTANCE_MEANS : null;
            return new Recovery(faultAt, fault.answers(), back, firstDecided, lagNormal, lagBound, groups, answeringAgain, means, answering);
        }

        /**
         * A lookup path ({@code /v1/parcels/{id}} or {@code /v1/vehicles/{id}}) of a key {@code owner} serves fresh, found
         * by looking up, through {@code through}, the parcels and vehicles of the events ingest accepted so far (at most
         * 40 lookups, 10 s). Empty when none was found: the drill then reports no answering-again figure, and says why.
         */
        private Optional<String> ownedLookup(HttpClient http, List<GeneratedEvent> sent, Map<String, Integer> statuses,
                                             ApiInstances.Instance owner, ApiInstances.Instance through, PrintStream log) {
            java.util.LinkedHashSet<String> paths = new java.util.LinkedHashSet<>();
            for (GeneratedEvent e : sent) {
                Integer st = statuses.get(e.eventId());
                if (st == null || st < 200 || st >= 300) {
                    continue;
                }
                if (e.value() instanceof ParcelScanned p) {
                    paths.add("/v1/parcels/" + java.net.URLEncoder.encode(p.getParcelId(), StandardCharsets.UTF_8));
                } else if (e.value() instanceof VehicleTelemetry t) {
                    paths.add("/v1/vehicles/" + java.net.URLEncoder.encode(t.getVehicleId(), StandardCharsets.UTF_8));
                }
            }
            Map<String, ApiInstances.Served> served = new LinkedHashMap<>();
            long until = System.currentTimeMillis() + 10_000;
            for (String path : paths) {
                if (served.size() >= 40 || System.currentTimeMillis() > until) {
                    break;
                }
                AnsweringAgain.Poll p = lookup(http, through.url().resolve(path));
                if (p.httpStatus() == 200) {
                    served.put(path, new ApiInstances.Served(p.servedBy(), p.stale()));
                    if (ApiInstances.firstOwnedBy(served, owner).isPresent()) {
                        break;
                    }
                }
            }
            Optional<String> found = ApiInstances.firstOwnedBy(served, owner);
            log.println("  " + found.map(f -> "key owned by " + owner.component() + " (" + owner.address() + "): " + f + ", looked up through "
                    + through.component() + " (" + through.address() + ")").orElse("no key owned by " + owner.component() + " among "
                    + served.size() + " looked up through " + through.component() + ": no answering-again figure"));
            return found;
        }

        /** One lookup with the ops token: its status and, on a 200, {@code meta.freshness}'s stale and servedBy. */
        private AnsweringAgain.Poll lookup(HttpClient http, URI uri) {
            long sent = System.currentTimeMillis();
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2))
                        .header("Authorization", "Bearer " + opsToken).GET().build(), HttpResponse.BodyHandlers.ofString());
                long at = System.currentTimeMillis();
                if (r.statusCode() != 200) {
                    return new AnsweringAgain.Poll(sent, at, r.statusCode(), false, null);
                }
                JsonNode freshness = JSON.readTree(r.body()).path("meta").path("freshness");
                return new AnsweringAgain.Poll(sent, at, 200, freshness.path("stale").asBoolean(false), freshness.path("servedBy").asText(null));
            } catch (IOException e) {
                return new AnsweringAgain.Poll(sent, System.currentTimeMillis(), 0, false, null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new AnsweringAgain.Poll(sent, System.currentTimeMillis(), 0, false, null);
            }
        }

        /**
         * From the fault, the owned key looked up through the survivor every 100 ms, until a fresh (not stale) answer to a
         * lookup sent once the instance was down, or {@code --recovery-timeout}.
         */
        private Answering watchAnswering(HttpClient http, FaultRun fault, ApiInstances.Instance killed, ApiInstances.Instance through,
                                         Optional<String> lookup, PrintStream log) {
            if (lookup.isEmpty()) {
                return new Answering(killed.component(), through.component(), null, AnsweringAgain.summarize(List.of(), fault.faultAt, fault.faultAt),
                        "no key owned by " + killed.component() + " was found before the fault (see the drill's output)");
            }
            long deadline = fault.faultAt + recoveryTimeout * 1000L;
            List<AnsweringAgain.Poll> polls = new ArrayList<>();
            URI uri = through.url().resolve(lookup.get());
            try {
                while (System.currentTimeMillis() < deadline && fault.error == null) {
                    AnsweringAgain.Poll p = lookup(http, uri);
                    polls.add(p);
                    long downAt = fault.downAt;
                    if (downAt > 0 && p.sentAtMillis() >= downAt && p.httpStatus() == 200 && !p.stale()) {
                        break;
                    }
                    long wait = p.sentAtMillis() + 100 - System.currentTimeMillis();
                    if (wait > 0) {
                        TimeUnit.MILLISECONDS.sleep(wait); // polling interval of a bounded watch
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long downAt = fault.downAt > 0 ? fault.downAt : fault.faultAt;
            AnsweringAgain.Result r = AnsweringAgain.summarize(polls, fault.faultAt, downAt);
            log.println("  " + lookup.get() + " answered 200 through " + through.component() + " " + (r.answeringAgainAfterMs() == null ? "never"
                    : r.answeringAgainAfterMs() + " ms after the fault (" + (Boolean.TRUE.equals(r.staleAtFirst()) ? "stale, " : "fresh, ")
                    + "served by " + r.servedByAtFirst() + ")") + "; fresh again " + (r.freshAgainAfterMs() == null ? "never"
                    : r.freshAgainAfterMs() + " ms after the fault (served by " + r.servedByWhenFresh() + ")"));
            return new Answering(killed.component(), through.component(), lookup.get(), r, null);
        }

        private boolean serving(HttpClient http, FaultRun fault, ChildStatus before) {
            return switch (scenario) {
                case KILL_API, WIPE_API_STATE -> status(http, api.resolve("/q/health/ready")) == 200;
                case RESTART_BROKER -> fault.backAt != null;
                case KILL_CONNECT, KILL_CEP -> component(scenario.component)
                        .filter(c -> c.state() == ChildState.RUNNING && c.pid() != before.pid()).isPresent();
            };
        }

        private Optional<ChildStatus> component(String name) {
            return StatusFile.read(stack.data().resolve(StatusFile.NAME))
                    .flatMap(s -> s.components().stream().filter(c -> c.name().equals(name)).findFirst());
        }

        // ------------------------------------------------------------------ checks

        /**
         * The decisions on the log, read again until every authorize answered 200 has one or the timeout (a missing
         * decision may still be on its way; the check then counts what is still missing as lost).
         */
        private static Map<String, List<String>> awaitDecisions(TopicReader reader, TopicSerdes serdes, Set<String> ids,
                                                                java.util.Collection<DrillChecks.Answer> answers, Duration timeout)
                throws InterruptedException {
            long until = System.currentTimeMillis() + timeout.toMillis();
            Map<String, List<String>> decisions = decisions(reader, serdes, ids);
            while (DrillChecks.undecided(answers, decisions) > 0 && System.currentTimeMillis() < until) {
                TimeUnit.SECONDS.sleep(1); // polling interval of a bounded wait for the api's next commit
                decisions = decisions(reader, serdes, ids);
            }
            return decisions;
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

        private static DrillChecks.Delivery asyncCheck(TopicReader reader, TopicSerdes serdes, List<GeneratedEvent> sent, Map<String, Integer> statuses) {
            Set<String> ids = new HashSet<>();
            sent.forEach(e -> ids.add(e.eventId()));
            List<String> onLog = new ArrayList<>();
            Deserializer<VehicleTelemetry> telemetry = serdes.valueSerde(Topics.VEHICLE_TELEMETRY).deserializer();
            reader.readAll(Topics.VEHICLE_TELEMETRY.name(), r -> eventId(() -> telemetry.deserialize(r.topic(), r.value()).getEnvelope().getEventId(), ids, onLog));
            Deserializer<ParcelScanned> scans = serdes.valueSerde(Topics.PARCEL_SCANS).deserializer();
            reader.readAll(Topics.PARCEL_SCANS.name(), r -> eventId(() -> scans.deserialize(r.topic(), r.value()).getEnvelope().getEventId(), ids, onLog));
            return DrillChecks.delivery(statuses, onLog);
        }

        private static void eventId(java.util.function.Supplier<String> id, Set<String> wanted, List<String> out) {
            try {
                String eventId = id.get();
                if (wanted.contains(eventId)) {
                    out.add(eventId);
                }
            } catch (RuntimeException unreadable) {
                // not an event this check sent; ingest's own consumers dead-letter what they cannot read
            }
        }

        /** The job's log after the kill names the checkpoint it resumed from; it must be the newest retained at the kill. */
        private CepCheck cepCheck(String newestAtKill, long logOffset) throws IOException {
            Path logFile = stack.data().resolve("logs").resolve(CEP_LOG);
            String resumed = null;
            for (String line : logSince(logFile, logOffset).split("\n")) {
                Matcher m = RESUMED.matcher(line);
                if (m.find()) {
                    resumed = m.group(1);
                }
            }
            return new CepCheck(newestAtKill, resumed, newestAtKill != null && newestAtKill.equals(resumed));
        }

        /** What a child wrote to its log from {@code offset} on; restarts append, so a shorter file was started afresh: all of it. */
        private static String logSince(Path file, long offset) throws IOException {
            if (!Files.isRegularFile(file)) {
                return "";
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                long from = offset <= channel.size() ? offset : 0;
                ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(channel.size() - from));
                while (buffer.hasRemaining() && channel.read(buffer, from + buffer.position()) >= 0) {
                    // read to the end as it was when opened
                }
                return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
            }
        }

        /**
         * The restarted api's restore, from its {@code StreamsTimeline} lines after {@code offset}: Streams calls the state
         * listener after it reports RUNNING, so the lines may follow readiness by a moment; waits until both applications
         * logged theirs or {@code timeout} passed, and takes what is there (null when nothing).
         */
        private static RestoreTimeline.Restore awaitRestoreLines(Path apiLog, long offset, Duration timeout) throws IOException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                Optional<RestoreTimeline.Restore> restore = RestoreTimeline.parse(logSince(apiLog, offset));
                if (restore.isPresent() && restore.get().apps().size() >= 2 || System.nanoTime() > deadline) {
                    return restore.orElse(null);
                }
                LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
            }
        }

        private static long size(Path file) {
            try {
                return Files.isRegularFile(file) ? Files.size(file) : 0;
            } catch (IOException e) {
                return 0;
            }
        }

        /**
         * The restore after the wipe: what Streams restored (the api's own timeline) over its restore span, against
         * ConsumerPerformance reading the same changelog topics now.
         */
        private RestoreCheck restoreCheck(Admin admin, TopicReader reader, List<String> apiGroups, FaultRun fault, String bootstrap,
                                          PrintStream log) {
            List<String> changelogs = new ArrayList<>();
            for (String app : apiGroups) {
                // A shadow's application id extends the live one (<app>-shadow-<id>): its changelogs are not the api's.
                Groups.topicsWithPrefix(admin, app + "-").stream()
                        .filter(t -> t.endsWith("-changelog") && !t.startsWith(app + "-shadow-"))
                        .sorted().forEach(changelogs::add);
            }
            Map<String, Long> records = new LinkedHashMap<>();
            for (String t : changelogs) {
                long[] n = {0};
                reader.readAll(t, r -> n[0]++);
                records.put(t, n[0]);
            }
            long total = records.values().stream().mapToLong(Long::longValue).sum();
            double perfRecords = 0, perfMs = 0;
            String note = null;
            KafkaTool tool = new KafkaTool(kafkaTools.toAbsolutePath());
            try {
                for (var e : records.entrySet()) {
                    if (e.getValue() == 0) {
                        continue;
                    }
                    KafkaTool.ConsumerPerf p = tool.consumerPerformance(bootstrap, e.getKey(), e.getValue(), Duration.ofMinutes(3));
                    perfRecords += p.records();
                    perfMs += p.fetchMs();
                }
            } catch (IOException | InterruptedException e) {
                note = "ConsumerPerformance failed: " + e.getMessage().lines().findFirst().orElse("");
                log.println("  " + note);
            }
            double perfRate = perfMs > 0 ? perfRecords * 1000.0 / perfMs : 0;
            RestoreTimeline.Restore restore = fault.restore;
            if (restore == null) {
                note = (note == null ? "" : note + "; ") + "the api's log holds no StreamsTimeline restore line after the start";
            }
            Double restoreRate = restore != null && restore.seconds() > 0 ? restore.recordsPerSec() : null;
            Double ratio = restoreRate != null && perfRate > 0 ? restoreRate / perfRate : null;
            return new RestoreCheck(changelogs, total, fault.startReadyMs == null ? -1 : fault.startReadyMs, restore, restoreRate, perfRate,
                    ratio, note);
        }

        private static int status(HttpClient http, URI uri) {
            try {
                return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException e) {
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
            DrillChecks.Delivery a = r.async();
            out.printf(Locale.ROOT, "Drill %s. Load: %,d authorizes at %d/s and %,d telemetry/scan events at %d/s over %.1f s (seed %d); load average %s%n",
                    r.scenario(), l.authorizesSent(), l.ratePerSecond(), l.asyncSent(), l.asyncRatePerSecond(), l.elapsedMs() / 1000.0,
                    l.seed(), r.loadAverage());
            out.printf(Locale.ROOT, "  telemetry/scans reached: sent at %,.0f/s, acknowledged (2xx) at %,.0f/s (first send to last answer); %,d requests sent again after a 429 or 503%n",
                    l.asyncSentPerSecond(), l.asyncAcknowledgedPerSecond(), l.asyncResent());
            out.printf(Locale.ROOT, "Recovery from the fault: serving again after %s, first decided answer to an authorize sent once it was down after %s, lag of %s under %d after %s%n",
                    ms(v.componentBackAfterMs()), ms(v.firstDecidedAnswerAfterMs()), v.lagGroups(), v.lagBound(), ms(v.lagNormalAfterMs()));
            if (v.answeringAgainMeans() != null) {
                out.printf(Locale.ROOT, "Answering again (the figure of the 10 s goal, answeringAgainAfterMs): %s: %s%n",
                        ms(v.answeringAgainAfterMs()), v.answeringAgainMeans());
            }
            Answering w = v.answering();
            if (w != null) {
                AnsweringAgain.Result ar = w.result();
                out.printf(Locale.ROOT, "  %s killed, %s looked up through %s every 100 ms: first 200 %s (%s, served by %s; %d of %d lookups sent "
                                + "once it was down got no 200 before it), fresh again after %s (served by %s); %s ready again after %s%s%n",
                        w.killed(), w.lookup(), w.through(), ms(ar.answeringAgainAfterMs()),
                        ar.staleAtFirst() == null ? "-" : ar.staleAtFirst() ? "stale: a standby answered" : "fresh",
                        ar.servedByAtFirst(), ar.notAnsweredAfterDown(), ar.lookupsAfterDown(), ms(ar.freshAgainAfterMs()),
                        ar.servedByWhenFresh(), w.killed(), ms(v.componentBackAfterMs()), w.note() == null ? "" : "; " + w.note());
            }
            out.printf(Locale.ROOT, "Answers: %,d answered (%,d decided, %,d fallbacks), %,d refused with 503 (the client was told; "
                            + "%,d of them decided anyway, once), %d request errors (neither a decision nor a refusal)%n",
                    d.answered(), d.decided(), d.fallbacks(), d.refused(), d.refusedDecided(), d.requestErrors());
            out.printf(Locale.ROOT, "Decisions on the log: %d lost, %d conflicting, %d identical duplicates; %d answers unlike the log%n",
                    d.lost(), d.conflicting(), d.identicalDuplicates(), d.answerMismatches());
            d.examples().forEach((check, ids) -> out.println("  " + check + ": " + ids));
            out.printf(Locale.ROOT, "Telemetry and scans: %,d sent, %,d accepted, %d refused, %d failed (no answer or 5xx, the client was told); "
                    + "%d accepted but lost, %d on their topic twice%s%n", a.sent(), a.accepted(), a.refused(), a.failed(), a.lost(), a.duplicated(),
                    a.examples().isEmpty() ? "" : " " + a.examples());
            out.printf(Locale.ROOT, "Alerts: %,d read, %d ids written more than once%s%n", r.alertsRead(), r.repeatedAlertIds().size(),
                    r.repeatedAlertIds().isEmpty() ? "" : " " + r.repeatedAlertIds());
            out.printf(Locale.ROOT, "Rebuild: %s (%s divergences, exit %d), shadow %s; %s%n", r.rebuild().result(),
                    r.rebuild().divergences(), r.rebuild().exitCode(), r.rebuild().shadowId(), r.rebuild().discard());
            if (r.rebuild().details() != null) {
                out.printf(Locale.ROOT, "  the rebuild's summary, every divergent key with both values: %s%n", r.rebuild().details());
            }
            LakeCheck k = r.lake();
            if (!k.ran()) {
                out.println("Lake: not checked (" + k.note() + ")");
            } else {
                out.printf(Locale.ROOT, "Lake: Iceberg %s Kafka over %d tables (%d missing, %d extra, %d rows twice)%s%n",
                        Boolean.TRUE.equals(k.equal()) ? "equals" : "does NOT equal", k.tables().size(), k.missing(), k.extra(),
                        k.duplicateRows(), k.note() == null ? "" : "; " + k.note());
                k.tables().stream().filter(t -> !t.equal()).forEach(t -> out.println("  " + t));
            }
            if (r.cep() != null) {
                out.printf("CEP: newest retained checkpoint at the kill %s; resumed from %s%n", r.cep().newestCheckpointAtKill(), r.cep().resumedFrom());
            }
            RestoreCheck s = r.restore();
            if (s != null) {
                RestoreTimeline.Restore t = s.restore();
                out.printf(Locale.ROOT, "Restore: %s; %,d records now on the %d changelog topics; ConsumerPerformance on them %.0f records/s "
                                + "(fetch time); ratio %s; the api's start until ready %d ms%s%n",
                        t == null ? "not in the api's log"
                                : String.format(Locale.ROOT, "Streams restored %,d records into %d store partitions in %.1f s (%.0f records/s)",
                                t.records(), t.partitions(), t.seconds(), t.recordsPerSec()),
                        s.changelogRecords(), s.changelogs().size(), s.consumerPerfFetchRecordsPerSec(),
                        s.ratio() == null ? "-" : String.format(Locale.ROOT, "%.2f", s.ratio()), s.startReadyMs(),
                        s.note() == null ? "" : "; " + s.note());
            }
            r.failures().forEach(f -> out.println("FAILED: " + f));
            out.println("Result: " + r.result());
        }

        private static String ms(Long millis) {
            return millis == null ? "never (timeout)" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
    }
}
