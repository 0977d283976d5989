package io.streamhouse.replay;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * {@code ./streamhouse replay rebuild|backfill|promote|discard}: rebuilds the api's Streams applications into a shadow
 * up to a cut and verifies it against live ({@code drill} is added by the drills module's {@code DrillsCli}). Exit
 * codes: 0 equal (or done), 1 divergent, 2 usage or bad input, 3 environment (no stack, broker or registry not
 * answering, live not at the cut, the shadow failed or timed out).
 */
@Command(name = "replay", mixinStandardHelpOptions = true, version = "replay 0.1",
        description = "Rebuild the api's Kafka Streams state or the CEP job's alerts from the log into a shadow and prove it equals live.",
        subcommands = {ReplayCli.Rebuild.class, Backfill.class, ReplayCli.Promote.class, ReplayCli.Discard.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:equal (rebuild, backfill), done (promote, discard) or passed (drill)", "1:the shadow diverges from live, a backfill's stitch is not exact, or a drill check failed",
                "2:usage or bad input (unknown projection, existing or missing shadow; backfill: no table, no snapshot, a gap; promote: a shadow not at its cut)",
                "3:environment (no running stack, broker or registry not answering, live behind the cut, shadow failed)"})
public final class ReplayCli implements Callable<Integer> {
    public static final int EQUAL = 0, DIVERGENT = 1, BAD_INPUT = 2, ENVIRONMENT = 3;
    /** The serving application id the launcher hands the api, written by {@code replay promote}. */
    public static final String SERVING_ID_FILE = "serving-application-id";
    private static final Pattern SHADOW_ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private PrintStream out = System.out;
    private PrintStream err = System.err;
    private volatile Object summary;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return BAD_INPUT;
    }

    public static void main(String[] args) {
        System.exit(io.streamhouse.control.CliLog.run("replay", args, (a, terminal) -> run(a, System.out, terminal)));
    }

    /** {@code more}: further subcommands beside rebuild, backfill, promote and discard (the drills module adds {@code drill}). */
    public static int run(String[] args, PrintStream out, PrintStream err, Object... more) {
        ReplayCli root = new ReplayCli();
        root.out = out;
        root.err = err;
        CommandLine cli = new CommandLine(root);
        for (Object subcommand : more) {
            cli.addSubcommand(subcommand);
        }
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(err, true));
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println(e instanceof BadInput || e instanceof Endpoints.EnvironmentException
                    ? "replay: " + e.getMessage() : "replay: failed: " + e);
            return exitCodeOf(e);
        });
        cli.setExecutionStrategy(parsed -> RunRecord.execute(parsed, args, root, java.time.Clock.systemUTC(), err));
        return cli.execute(args);
    }

    /** The exit code of a run that threw: 2 for bad input, 3 for anything else. */
    static int exitCodeOf(Throwable e) {
        return e instanceof BadInput ? BAD_INPUT : ENVIRONMENT;
    }

    /** The run's summary as {@code --json} prints it, kept with the run's record ({@link RunRecord}). */
    public void summary(Object summary) {
        this.summary = summary;
    }

    Object summary() {
        return summary;
    }

    public PrintStream out() {
        return out;
    }

    public PrintStream err() {
        return err;
    }

    /** Bad input: exit 2 with the message. */
    public static final class BadInput extends RuntimeException {
        public BadInput(String message) {
            super(message);
        }
    }

    /** Where the running stack is. */
    public static final class Stack {
        @Option(names = "--data", description = "the stack's data directory (default: ./.streamhouse)")
        Path data;
        @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers (default: from the data directory)")
        String bootstrap;
        @Option(names = "--registry-url", description = "schema registry URL (default: from the data directory)")
        String registry;

        public Path data() {
            return data != null ? data.toAbsolutePath().normalize()
                    : Path.of(System.getProperty("streamhouse.home", ".")).resolve(".streamhouse").toAbsolutePath().normalize();
        }

        /** The --bootstrap-servers given, or null (then the data directory's). */
        public String bootstrap() {
            return bootstrap;
        }

        /** The --registry-url given, or null (then the data directory's). */
        public String registry() {
            return registry;
        }

        public Endpoints endpoints() {
            return Endpoints.resolve(bootstrap, registry, data());
        }

        /** An admin client, once the broker answered (else exit 3 at once instead of long client timeouts). */
        public Admin admin(Endpoints endpoints) {
            Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.REPLAY)
                    .admin(endpoints.bootstrapServers(), Map.of(
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000)));
            try {
                admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS);
                return admin;
            } catch (Exception e) {
                admin.close(Duration.ZERO);
                throw new Endpoints.EnvironmentException("the Kafka broker at " + endpoints.bootstrapServers() + " does not answer: " + e);
            }
        }

        /** The live serving application id: what the last promote chose, else the default. */
        public String liveServingId() throws IOException {
            Path file = data().resolve(SERVING_ID_FILE);
            return Files.isRegularFile(file) ? Files.readString(file).trim() : Target.SERVING.defaultLiveApplicationId();
        }

        public static void requireRegistry(Endpoints endpoints) {
            try {
                HttpResponse<Void> answer = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
                        .send(HttpRequest.newBuilder(URI.create(endpoints.registryUrl() + "/subjects")).timeout(Duration.ofSeconds(5))
                                .GET().build(), HttpResponse.BodyHandlers.discarding());
                if (answer.statusCode() != 200) {
                    throw new Endpoints.EnvironmentException("the schema registry at " + endpoints.registryUrl() + " answered "
                            + answer.statusCode());
                }
            } catch (IOException | IllegalArgumentException e) {
                throw new Endpoints.EnvironmentException("the schema registry at " + endpoints.registryUrl() + " does not answer: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    static String requireShadowId(String id) {
        if (!SHADOW_ID.matcher(id).matches()) {
            throw new BadInput("a shadow id is 1-40 lower-case letters, digits and dashes, not '" + id + "'");
        }
        return id;
    }


    @Command(name = "rebuild", mixinStandardHelpOptions = true,
            description = "Rebuild serving, decisions, cep, api (serving and decisions: the api's two Streams applications) or all "
                    + "into a shadow from offset 0 to the cut (the inputs' ends now), then compare it with live.")
    static final class Rebuild extends ShadowRunOptions implements Callable<Integer> {
        @CommandLine.ParentCommand
        ReplayCli parent;
        @Mixin
        Stack stack;
        @Parameters(paramLabel = "<serving|decisions|cep|api|all>", description = "what to rebuild")
        String what;
        @Option(names = "--id", description = "the shadow's id (default: the UTC time, yyyyMMdd-HHmmss)")
        String id;
        @Option(names = "--serving-app-id", description = "live serving application id (default: the promoted one, else streamhouse-serving)")
        String servingAppId;
        @Option(names = "--decisions-app-id", defaultValue = "streamhouse-api", description = "live decision application id")
        String decisionsAppId;
        @Option(names = "--cep-group-id", defaultValue = CepShadow.LIVE_GROUP, description = "the live CEP job's group id (default ${DEFAULT-VALUE})")
        String cepGroupId;
        @Option(names = "--cep-out-of-orderness", defaultValue = "PT30S",
                description = "the live CEP job's --max-out-of-orderness (default ${DEFAULT-VALUE}): sets the settled horizon")
        Duration cepOutOfOrderness;
        @Option(names = "--cep-output-prefix", defaultValue = "",
                description = "the live CEP job's --output-prefix, if it writes its alerts to <prefix><topic> (default none)")
        String cepOutputPrefix;

        @Override
        public Integer call() throws Exception {
            boolean all = "all".equalsIgnoreCase(what.trim()), cep = all || "cep".equalsIgnoreCase(what.trim());
            boolean api = all || "api".equalsIgnoreCase(what.trim());
            List<Target> targets = api ? List.of(Target.DECISIONS, Target.SERVING) : cep ? List.of() : List.of(parse(what));
            String shadowId = requireShadowId(id != null ? id
                    : DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now()));
            if (maxDiffs < 0 || timeoutSeconds < 1 || liveTimeoutSeconds < 1 || cepOutOfOrderness.isNegative()) {
                throw new BadInput("--max-diffs must be 0 or more, --timeout and --live-timeout at least 1, --cep-out-of-orderness not negative");
            }
            PrintStream out = parent.out;
            Endpoints endpoints = stack.endpoints();
            Stack.requireRegistry(endpoints);
            Path record = Records.file(stack.data(), shadowId);
            Duration timeout = Duration.ofSeconds(timeoutSeconds);
            try (Admin admin = stack.admin(endpoints);
                 CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(endpoints.registryUrl())) {
                TopicSerdes serdes = new RegistryTopicSerdes(registry);
                for (Target target : targets) {
                    String app = target.shadowApplicationId(shadowId);
                    if (Files.exists(record) || Groups.exists(admin, app) || !Groups.topicsWithPrefix(admin, app + "-").isEmpty()
                            || !Groups.topicsWithPrefix(admin, app + ".").isEmpty()) {
                        throw new BadInput("the shadow '" + shadowId + "' already exists (" + app + "): choose another --id, or "
                                + "./streamhouse replay discard " + shadowId);
                    }
                    if (!Groups.exists(admin, liveId(target))) {
                        throw new Endpoints.EnvironmentException("the live application " + liveId(target) + " has no consumer group on "
                                + endpoints.bootstrapServers() + ": is the api running? (--" + target.label() + "-app-id)");
                    }
                }
                if (cep) {
                    String group = CepShadow.groupId(shadowId);
                    if (Files.exists(record) || Groups.exists(admin, group) || !Groups.topicsWithPrefix(admin, CepShadow.topicPrefix(group)).isEmpty()) {
                        throw new BadInput("the shadow '" + shadowId + "' already exists (" + group + "): choose another --id, or "
                                + "./streamhouse replay discard " + shadowId);
                    }
                    if (!Groups.exists(admin, cepGroupId)) {
                        throw new Endpoints.EnvironmentException("the live CEP job's group " + cepGroupId + " does not exist on "
                                + endpoints.bootstrapServers() + ": is the CEP job running? (--cep-group-id)");
                    }
                }
                Progress progress = json ? Progress.none() : Progress.to(parent.err, System.console() != null);
                Instant began = Instant.now();
                // The targets share nothing but the inputs they read (each its own shadow id, state and outputs): they
                // rebuild side by side, and the reports keep the order of the targets.
                List<Callable<Report.TargetReport>> jobs = new ArrayList<>();
                for (Target target : targets) {
                    jobs.add(() -> rebuild(target, shadowId, admin, endpoints, serdes, timeout, progress, out));
                }
                if (cep) {
                    jobs.add(() -> rebuildCep(shadowId, admin, endpoints, serdes, timeout, progress, out));
                }
                List<Report.TargetReport> reports = SideBySide.run("replay-rebuild", jobs);
                long divergences = reports.stream().mapToLong(Report.TargetReport::divergences).sum();
                Report.Summary summary = new Report.Summary(shadowId, divergences == 0 ? "EQUAL" : "DIVERGENT", divergences,
                        Duration.between(began, Instant.now()).toMillis(), reports);
                Records.write(record, summary);
                parent.summary(summary);
                if (json) {
                    out.println(Records.JSON.writeValueAsString(summary));
                } else {
                    Records.print(summary, out);
                }
                return divergences == 0 ? EQUAL : DIVERGENT;
            }
        }

        private String liveId(Target target) throws IOException {
            return switch (target) {
                case SERVING -> servingAppId != null ? servingAppId : stack.liveServingId();
                case DECISIONS -> decisionsAppId;
            };
        }

        private Report.TargetReport rebuild(Target target, String shadowId, Admin admin, Endpoints endpoints, TopicSerdes serdes,
                                            Duration timeout, Progress progress, PrintStream out) throws Exception {
            String liveId = liveId(target), shadowApp = target.shadowApplicationId(shadowId);
            Cut cut = Cut.take(admin, target.inputTopics());
            if (!json) {
                out.printf(Locale.ROOT, "%s: cut at the inputs' ends now, %,d offsets on %d partitions; shadow %s%n", target.label(),
                        cut.span(), cut.offsets().size(), shadowApp);
            }
            // Live at the cut: live has committed the cut on every input (it may have gone further if input flows).
            if (!Groups.awaitCaughtUp(admin, liveId, target.committedPart(cut, OutputTopics.LIVE), target.repartitionTopics(liveId), Duration.ofSeconds(liveTimeoutSeconds),
                    left -> { }, () -> false)) {
                throw new Endpoints.EnvironmentException("the live application " + liveId + " has not reached the cut within "
                        + liveTimeoutSeconds + " s (--live-timeout): is it running and keeping up?");
            }
            Path stateDir = stack.data().resolve("replay").resolve("state");
            Files.createDirectories(stateDir);
            Verify verify = new Verify(new TopicReader(endpoints.bootstrapServers(), admin, timeout), serdes, maxDiffs);
            // Live decided each payment with the alerts it had read by then; the shadow reads as far.
            DecisionTopology.AlertsSeenBy alertsSeen = target == Target.DECISIONS
                    ? verify.alertsSeen(OutputTopics.LIVE.of(io.streamhouse.domain.topic.Topics.TRANSACTION_DECISIONS.name())) : DecisionTopology.AlertsSeenBy.ALL;
            ShadowRun.Result result = ShadowRun.run(target, shadowApp, cut, admin, endpoints.bootstrapServers(), serdes, stateDir,
                    timeout, progress, alertsSeen);
            Verify.Side live = new Verify.Side(liveId, OutputTopics.LIVE);
            Verify.Side shadow = new Verify.Side(shadowApp, Target.shadowOutputs(shadowApp));
            List<Report.StoreReport> stores = verify.compareAll(target.stores(), live, shadow);
            Report.DecisionReport decisions = target == Target.DECISIONS ? verify.compareDecisions(cut, live, shadow) : null;
            long divergences = stores.stream().mapToLong(Report.StoreReport::divergentKeys).sum()
                    + (decisions == null ? 0 : decisions.divergent());
            Map<String, Long> cutView = new TreeMap<>();
            cut.offsets().forEach((tp, o) -> cutView.put(tp.toString(), o));
            return new Report.TargetReport(target.label(), liveId, shadowApp, result.events(), result.dropped(),
                    result.duration().toMillis(), result.eventsPerSecond(), cutView, stores, decisions, null, divergences,
                    Groups.pastCut(Groups.committed(admin, liveId), target.committedPart(cut, OutputTopics.LIVE)));
        }

        /**
         * The CEP job into a shadow: cut its inputs (the rules included), read them to the cut (events, their times,
         * the settled horizons), wait until live has consumed the cut, run the job bounded at the cut in a child JVM,
         * then compare the settled alerts by id.
         */
        private Report.TargetReport rebuildCep(String shadowId, Admin admin, Endpoints endpoints, TopicSerdes serdes,
                                               Duration timeout, Progress progress, PrintStream out) throws Exception {
            String group = CepShadow.groupId(shadowId);
            Cut cut = Cut.take(admin, CepShadow.inputTopics());
            if (!json) {
                out.printf(Locale.ROOT, "cep: cut at the inputs' ends now, %,d offsets on %d partitions; shadow %s%n",
                        cut.span(), cut.offsets().size(), group);
            }
            AlertVerify verify = new AlertVerify(new TopicReader(endpoints.bootstrapServers(), admin, timeout), serdes, maxDiffs);
            AlertVerify.Input input = verify.readInput(cut, cepOutOfOrderness);
            // Live at the cut: its group has committed (with a checkpoint) every record before the cut. The Kafka source
            // commits the offset after its last record, which is short of the cut when a transaction marker ends it.
            if (!Groups.awaitCommitted(admin, cepGroupId, input.lastRecordEnds(), Duration.ofSeconds(liveTimeoutSeconds))) {
                throw new Endpoints.EnvironmentException("the live CEP job (group " + cepGroupId + ") has not reached the cut within "
                        + liveTimeoutSeconds + " s (--live-timeout): is it running and keeping up?");
            }
            Path work = Files.createDirectories(stack.data().resolve("replay").resolve("state"));
            progress.update("cep", 0, Math.max(1, cut.span()), 0, Duration.ZERO);
            CepShadow.Result result = CepShadow.run(CepShadow.home(), group, cut, admin, endpoints.bootstrapServers(),
                    endpoints.registryUrl(), work, timeout);
            progress.done("cep", input.events(), result.duration());
            // The shadow ran for seconds after live passed the cut: live's alerts up to the settled horizon, emitted as
            // its watermark passed it, are committed by its next checkpoint (every second) well before they are read.
            Report.AlertReport alerts = verify.compare(input, verify.alerts(cepOutputPrefix), verify.alerts(CepShadow.topicPrefix(group)));
            Map<String, Long> cutView = new TreeMap<>();
            cut.offsets().forEach((tp, o) -> cutView.put(tp.toString(), o));
            double seconds = Math.max(0.001, result.duration().toMillis() / 1000.0);
            return new Report.TargetReport("cep", cepGroupId, group, input.events(), 0, result.duration().toMillis(),
                    input.events() / seconds, cutView, List.of(), null, alerts, alerts.divergent());
        }

        private static Target parse(String raw) {
            try {
                return Target.parse(raw);
            } catch (IllegalArgumentException e) {
                throw new BadInput(e.getMessage());
            }
        }
    }

    @Command(name = "promote", mixinStandardHelpOptions = true,
            description = "Serve from a rebuilt or backfilled serving shadow from the api's next start (serving only: decisions are not served state).")
    static final class Promote implements Callable<Integer> {
        @CommandLine.ParentCommand
        ReplayCli parent;
        @Mixin
        Stack stack;
        @Parameters(paramLabel = "<shadow id>")
        String id;
        @Option(names = "--force", description = "promote even though the rebuild diverged from live")
        boolean force;

        @Override
        public Integer call() throws Exception {
            String shadowId = requireShadowId(id);
            Path record = Records.file(stack.data(), shadowId), backfilled = Backfill.file(stack.data(), shadowId);
            Report.Summary summary;
            if (Files.isRegularFile(record)) {
                summary = Records.JSON.readValue(record.toFile(), Report.Summary.class);
            } else if (Files.isRegularFile(backfilled)) {
                Backfill.Summary b = Records.JSON.readValue(backfilled.toFile(), Backfill.Summary.class);
                if (b.targets() == null) {
                    throw new BadInput("the backfill '" + shadowId + "' was made by an older replay that left its offsets on its own "
                            + "input topics only: run the backfill again to promote it");
                }
                summary = new Report.Summary(b.shadowId(), b.result(), b.divergences(), b.durationMs(), b.targets());
            } else {
                throw new BadInput("no rebuild or backfill '" + shadowId + "' in " + record.getParent()
                        + ": run ./streamhouse replay rebuild serving --id " + shadowId + " (or backfill serving)");
            }
            String app = Target.SERVING.shadowApplicationId(shadowId);
            Report.TargetReport serving = summary.targets().stream().filter(t -> app.equals(t.shadowApplicationId())).findFirst()
                    .orElseThrow(() -> new BadInput("the shadow '" + shadowId + "' has no serving shadow: only serving can be promoted "
                            + "(decisions are a log, not served state)"));
            if (!"EQUAL".equals(summary.result()) && !force) {
                throw new BadInput("the shadow '" + shadowId + "' diverged from live (" + summary.divergences()
                        + " divergences): fix the cause, or --force to serve it anyway");
            }
            Endpoints endpoints = stack.endpoints();
            try (Admin admin = stack.admin(endpoints)) {
                if (Groups.topicsWithPrefix(admin, app + "-").isEmpty()) {
                    throw new BadInput("the shadow " + app + " has no changelogs on " + endpoints.bootstrapServers() + " (discarded?)");
                }
                requireAtTheCut(admin, app, serving);
            }
            String previous = stack.liveServingId();
            Files.writeString(stack.data().resolve(SERVING_ID_FILE), app + "\n");
            parent.summary(new Promoted(shadowId, "DONE", app, previous));
            parent.out.println("Promoted: the api serves from " + app + " from its next start (was " + previous + ").");
            parent.out.println("It restores the shadow's stores from their changelogs and continues from the shadow's offsets (the cut).");
            parent.out.println("Restart the api now: ./streamhouse restart api (a stopped stack serves it at its next up).");
            parent.out.println("The previous state (" + previous + ") stays until its topics and group are deleted.");
            return EQUAL;
        }
    }

    /** What promote did, for its run record: the api serves {@code application} from its next start, not {@code previous}. */
    record Promoted(String shadowId, String result, String application, String previous) {
    }

    /** What discard deleted, for its run record. */
    record Discarded(String shadowId, String result, int topics, int consumerGroups) {
    }

    /**
     * The api continues the promoted application from its group's offsets on the live inputs: each must be there, at
     * least the cut the shadow was built to (a backfill's stitched inputs ended there; beyond it only if it has served
     * since). A partition without one would start by the reset policy — from the log's start, counting twice what the
     * shadow holds, or missing what retention dropped.
     */
    static void requireAtTheCut(Admin admin, String app, Report.TargetReport report) {
        Map<org.apache.kafka.common.TopicPartition, Long> committed = Groups.committed(admin, app);
        for (var tp : Groups.ends(admin, Target.SERVING.inputTopics()).keySet()) {
            Long at = committed.get(tp), cut = report.cut() == null ? null : report.cut().get(tp.toString());
            if (at == null || cut == null || at < cut) {
                throw new BadInput("the shadow " + app + " has " + (at == null ? "no committed offset" : "offset " + at) + " on " + tp
                        + (cut == null ? " and its record no cut there" : ", short of its cut " + cut)
                        + ": served, it would not continue where it was built to");
            }
        }
    }

    @Command(name = "discard", mixinStandardHelpOptions = true, description = "Delete a shadow's topics, consumer groups, state and record.")
    static final class Discard implements Callable<Integer> {
        @CommandLine.ParentCommand
        ReplayCli parent;
        @Mixin
        Stack stack;
        @Parameters(paramLabel = "<shadow id>")
        String id;

        @Override
        public Integer call() throws Exception {
            String shadowId = requireShadowId(id);
            String serving = stack.liveServingId();
            Endpoints endpoints = stack.endpoints();
            try (Admin admin = stack.admin(endpoints)) {
                List<String> topics = new ArrayList<>();
                List<String> groups = new ArrayList<>();
                for (Target target : Target.values()) {
                    String app = target.shadowApplicationId(shadowId);
                    if (app.equals(serving)) {
                        throw new BadInput(app + " is serving now (promoted): promote another shadow first");
                    }
                    topics.addAll(Groups.topicsWithPrefix(admin, app + "-"));
                    topics.addAll(Groups.topicsWithPrefix(admin, app + "."));
                    if (Groups.exists(admin, app)) {
                        groups.add(app);
                    }
                    deleteRecursively(stack.data().resolve("replay").resolve("state").resolve(app));
                }
                String cepGroup = CepShadow.groupId(shadowId);
                topics.addAll(Groups.topicsWithPrefix(admin, CepShadow.topicPrefix(cepGroup)));
                if (Groups.exists(admin, cepGroup)) {
                    groups.add(cepGroup);
                }
                deleteRecursively(stack.data().resolve("replay").resolve("state").resolve(cepGroup));
                Files.deleteIfExists(stack.data().resolve("replay").resolve("state").resolve(cepGroup + ".log"));
                Path record = Records.file(stack.data(), shadowId);
                if (topics.isEmpty() && groups.isEmpty() && !Files.exists(record)
                        && !Files.exists(record.resolveSibling(shadowId + ".backfill.json"))) {
                    throw new BadInput("no shadow '" + shadowId + "' on " + endpoints.bootstrapServers());
                }
                if (!groups.isEmpty()) {
                    // A shadow's Streams members stay in its group after it closed, until their sessions time out.
                    groups.forEach(group -> ShadowRun.removeMembers(admin, group));
                    admin.deleteConsumerGroups(groups).all().get(30, TimeUnit.SECONDS);
                }
                if (!topics.isEmpty()) {
                    admin.deleteTopics(topics).all().get(30, TimeUnit.SECONDS);
                }
                Files.deleteIfExists(record);
                Files.deleteIfExists(record.resolveSibling(shadowId + ".backfill.json"));
                parent.summary(new Discarded(shadowId, "DONE", topics.size(), groups.size()));
                parent.out.printf(Locale.ROOT, "Discarded shadow %s: %d topics, %d consumer groups, its state and record.%n",
                        shadowId, topics.size(), groups.size());
                return EQUAL;
            }
        }

        private static void deleteRecursively(Path dir) throws IOException {
            if (!Files.exists(dir)) {
                return;
            }
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
