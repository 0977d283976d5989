package io.streamhouse.drills;

import io.streamhouse.control.ChildStatus;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.loadtests.demo.DemoTransaction;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.replay.Groups;
import io.streamhouse.replay.Records;
import io.streamhouse.replay.ReplayCli;
import io.streamhouse.replay.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

import java.io.PrintStream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One fault drill run, in order: {@link Preflight}, the load ({@link PacedLoad} and {@link AsyncLoad}) with the
 * {@link Fault} part-way and the {@link RecoveryWatch} beside it, then the {@link Check}s once the consumers caught
 * up, then the {@link DrillReport}. Each part does its own job; this class only wires them.
 */
abstract class FaultDrill implements Callable<Integer> {
    @CommandLine.ParentCommand
    Drill drill;
    @Mixin
    ReplayCli.Stack stack;
    @Mixin
    DrillOptions options;

    private final Scenario scenario;

    FaultDrill(Scenario scenario) {
        this.scenario = scenario;
    }

    @Override
    public Integer call() throws Exception {
        options.validate();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        Preflight pre = Preflight.check(options, stack, scenario, http);
        PrintStream out = drill.parent.out(), err = drill.parent.err();
        PrintStream log = options.json ? err : out;
        long runSeed = options.seed != null ? options.seed : System.currentTimeMillis();
        int rate = options.rate, asyncRate = options.asyncRate, duration = options.duration;
        try (Admin admin = stack.admin(pre.endpoints());
             CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(pre.endpoints().registryUrl())) {
            TopicSerdes serdes = new RegistryTopicSerdes(registry);
            Preflight.Watched watched = Preflight.groups(admin, stack, scenario, pre.endpoints());
            ClusterTarget target = ClusterTarget.choose(scenario, admin, stack.data(), http, log);
            ChildStatus before = target != null ? target.before() : pre.before();
            List<String> failures = new ArrayList<>();

            // 1-3: the load, the fault part-way (its own thread: stop/start/restart answer only once done), the watch.
            log.printf(Locale.ROOT, "%s drill: %d authorizes/s and %d telemetry readings + parcel scans/s for %d s (seed %d), "
                    + "the fault after %d s%n", scenario.label, rate, asyncRate, duration, runSeed, options.faultAfter);
            List<DemoTransaction> txs = PacedLoad.authorizes(runSeed, rate * duration);
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
            AsyncLoad asyncSender = AsyncLoad.overHttp(asyncEvents, http, pre.ingest(), pre.deviceToken(), clock, asyncStatus, done);
            CompletableFuture<AsyncLoad.Reached> asyncLoad = CompletableFuture.supplyAsync(() -> asyncSender.run(start, asyncRate));
            PacedLoad paced = new PacedLoad(http, pre.ingest(), pre.paymentsToken(), pre.deviceToken());
            Fault fault = new Fault(stack.data(), scenario, target, log, began);
            RecoveryWatch watch = new RecoveryWatch(http, scenario, stack.data(), pre.api(), pre.opsToken(), options.recoveryTimeout,
                    options.lagBound, log, target);
            List<CompletableFuture<RecoveryWatch.Recovery>> recovery = new ArrayList<>(1);
            paced.run(txs, start, rate, answers, done, () -> {
                if (recovery.isEmpty() && System.nanoTime() - start >= TimeUnit.SECONDS.toNanos(options.faultAfter)) {
                    recovery.add(faultAndWatch(pre, before, watch, fault, admin, watched.lagGroups(), answers, asyncEvents, asyncStatus));
                }
            });
            AsyncLoad.Reached asyncSent = asyncLoad.join();
            if (!asyncEvents.isEmpty()) {
                log.printf(Locale.ROOT, "  closing event-time ticks: %s%n", paced.closingTicks(runSeed));
            }
            long loadEnd = System.currentTimeMillis();
            fault.awaitDone(Duration.ofSeconds(options.recoveryTimeout + 60L));
            RecoveryWatch.Recovery rec = recovery.get(0).join();
            if (fault.error != null) {
                failures.add("the fault did not go as asked: " + fault.error);
            }
            if (!done.await(60, TimeUnit.SECONDS)) {
                failures.add("requests still unanswered 60 s after the load ended: " + done.getCount());
            }
            AsyncLoad.Reached reached = asyncSender.reached(asyncSent);
            DrillReport.Load load = new DrillReport.Load(rate, asyncRate, duration, runSeed, txs.size(), asyncEvents.size(), loadEnd - began,
                    reached.sentPerSecond(), reached.acknowledgedPerSecond(), reached.resent());
            failures.addAll(recoveryFailures(rec, watched.lagGroups(), target));

            // 4: quiet, then the checks.
            DrillSteps.awaitQuiet(admin, DrillChecks.quietGroups(
                    Groups.exists(admin, Drill.CEP_GROUP) ? List.of(Drill.CEP_GROUP) : List.of(), watched.lagGroups(), watched.apiGroups()),
                    Duration.ofSeconds(options.recoveryTimeout));
            TopicReader reader = new TopicReader(pre.endpoints().bootstrapServers(), admin, Duration.ofSeconds(120));
            CheckContext on = new CheckContext(stack, admin, reader, serdes, pre.endpoints().bootstrapServers(), log);
            DrillChecks.Result decisions = on.run(new DecisionsCheck(txs.stream().map(DemoTransaction::transactionId).toList(), answers.values(),
                    Duration.ofSeconds(options.recoveryTimeout)), failures);
            DrillChecks.Delivery async = on.run(new AsyncDeliveryCheck(asyncEvents, asyncStatus), failures);
            AlertIdsCheck.Found alerts = on.run(new AlertIdsCheck(), failures);
            CepResumeCheck.Found cep = scenario == Scenario.KILL_CEP
                    ? on.run(new CepResumeCheck(fault.newestCheckpointAtKill, fault.cepLogOffset), failures) : null;
            RestoreCheck.Found restore = scenario == Scenario.WIPE_API_STATE && fault.error == null
                    ? on.run(new RestoreCheck(watched.apiGroups(), fault, options.kafkaTools), failures) : null;
            FlinkRestoreCheck.Found flink = target instanceof TaskManagerTarget tm
                    ? on.run(new FlinkRestoreCheck(tm.atKill(), tm.recovered()), failures) : null;
            RebuildCheck.Found rebuild = on.run(new RebuildCheck(Groups.exists(admin, Drill.CEP_GROUP)), failures);
            LakeCheck.Found lake = on.run(new LakeCheck(watched.lakeRuns(), options.recoveryTimeout), failures);

            DrillReport report = new DrillReport(scenario.label, failures.isEmpty() ? "PASS" : "FAIL", load, rec, decisions, async,
                    alerts.read(), alerts.repeated(), rebuild, lake, cep, restore, target == null ? null : target.figures(), flink,
                    DrillSteps.loadAverage(), failures);
            drill.parent.summary(report);
            if (options.json) {
                out.println(Records.JSON.writeValueAsString(report));
            } else {
                DrillReport.print(report, out);
            }
            return failures.isEmpty() ? ReplayCli.EQUAL : ReplayCli.DIVERGENT;
        }
    }

    /**
     * Starts the fault and the recovery watch. kill-api with several instances: first a key the instance to be killed
     * owns (a few lookups through the survivor), then the fault, with the answering watch beside the recovery watch.
     */
    private CompletableFuture<RecoveryWatch.Recovery> faultAndWatch(Preflight pre, ChildStatus before, RecoveryWatch watch, Fault fault, Admin admin,
                                                                    List<String> lagGroups, Map<String, DrillChecks.Answer> answers,
                                                                    List<GeneratedEvent> asyncEvents, Map<String, Integer> asyncStatus) {
        if (pre.through().isPresent()) {
            ApiInstances.Instance k = pre.killed().get(), t = pre.through().get();
            return CompletableFuture.supplyAsync(() -> {
                Optional<String> lookup = watch.ownedLookup(asyncEvents, asyncStatus, k, t);
                fault.start();
                CompletableFuture<RecoveryWatch.Answering> answering = CompletableFuture.supplyAsync(() -> watch.watchAnswering(fault, k, t, lookup));
                return watch.watch(admin, lagGroups, fault, before, answers, answering);
            });
        }
        fault.start();
        return CompletableFuture.supplyAsync(() -> watch.watch(admin, lagGroups, fault, before, answers, null));
    }

    private List<String> recoveryFailures(RecoveryWatch.Recovery rec, List<String> lagGroups, ClusterTarget target) {
        List<String> failures = new ArrayList<>();
        if (rec.componentBackAfterMs() == null) {
            failures.add((target != null ? "without " + target.component() + ", not " + target.figures().servingAgainMeans()
                    : scenario.component + " was not serving again") + " within " + options.recoveryTimeout + " s");
        }
        if (target != null && target.figures().rejoinedAfterMs() == null) {
            failures.add("not " + target.figures().rejoinedMeans() + " within " + options.recoveryTimeout + " s");
        }
        if (rec.answering() != null && rec.answering().lookup() != null && rec.answeringAgainAfterMs() == null) {
            failures.add(rec.answering().lookup() + ", owned by the killed " + rec.answering().killed() + ", got no 200 through "
                    + rec.answering().through() + " within " + options.recoveryTimeout + " s");
        }
        if (rec.lagNormalAfterMs() == null) {
            failures.add("the lag of " + lagGroups + " was not back under " + options.lagBound + " within " + options.recoveryTimeout + " s");
        }
        return failures;
    }
}
