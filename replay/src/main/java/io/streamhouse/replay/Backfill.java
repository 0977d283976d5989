package io.streamhouse.replay;

import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.domain.event.TransactionDecision;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * {@code replay backfill serving|decisions|all}: rebuilds the api's Streams state when the log no longer reaches back
 * to offset 0.
 *
 * <p>Per input partition it stitches one input: the rows of the topic's Iceberg table at one snapshot (turned back
 * into the topic's Avro in the registry's wire format, keyed as the topology requires, with their Kafka timestamps,
 * in {@code _offset} order) up to the highest {@code _offset} the snapshot holds, then the log's own records from
 * exactly the next offset to the cut. The stitch goes to the shadow's own input topics
 * ({@code <shadow app>.input.<topic>}, same partitions), the live topology runs over them under the shadow's
 * application id, and its stores are compared with live as {@code rebuild} does. The decision topology's fraud-alert
 * global table is stitched the same way; its decisions are recomputed for the lake part too (the card activity is a
 * fold over every request) and compared with live's by transaction id, live's own decisions read from the lake where
 * the decisions log no longer holds them. The shadow's group then gets the live cut as its committed offsets on the
 * live inputs, so a promoted shadow continues from the log exactly where the stitch ended.
 *
 * <p>Refused (exit 2), never papered over: a topic without a table or snapshot, and a gap — a partition whose log
 * starts after the snapshot's next offset (the live decisions' too). A snapshot that is ahead of the cut is cut at the
 * cut. Exactness is checked, not assumed: the lake's offsets per partition are distinct; on the rows the lake and the
 * log both still hold, every converted row equals the log's record byte for byte (count and digest); the stitched
 * input read back has exactly lake rows + log records per partition, and its digests equal those of what was stitched.
 * Any of these failing, a store or a decision differing from live, is exit 1.
 */
@Command(name = "backfill", mixinStandardHelpOptions = true,
        description = "Rebuild serving, decisions or all from the lake (one Iceberg snapshot) stitched to the log's next offsets, then compare with live.")
final class Backfill extends ShadowRunOptions implements Callable<Integer> {
    static final String CATALOG_PREFIX = "lake.catalog.";

    @CommandLine.ParentCommand
    ReplayCli parent;
    @Mixin
    ReplayCli.Stack stack;
    @CommandLine.Parameters(paramLabel = "<serving|decisions|all>", description = "what to rebuild (all: decisions, then serving; "
            + "the CEP job reads the log only: use rebuild cep)")
    String what;
    @Option(names = "--id", description = "the shadow's id (default: the UTC time, yyyyMMdd-HHmmss)")
    String id;
    @Option(names = "--as-of", paramLabel = "<instant>", description = "read each input's table at its newest snapshot committed at or "
            + "before this time, e.g. 2026-12-02T05:00:00Z (default: each table's current snapshot)")
    Instant asOf;
    @Option(names = "--lake-catalog", description = "an Iceberg catalog property, key=value (default: the lake.catalog.* keys of the data directory's endpoints file)")
    Map<String, String> catalog;
    @Option(names = "--serving-app-id", description = "live serving application id (default: the promoted one, else streamhouse-serving)")
    String servingAppId;
    @Option(names = "--decisions-app-id", defaultValue = "streamhouse-api", description = "live decision application id (default ${DEFAULT-VALUE})")
    String decisionsAppId;
    @Option(names = "--decisions-output-prefix", defaultValue = "",
            description = "the live decision application's output prefix, if it writes to <prefix><topic> (default none)")
    String decisionsOutputPrefix;

    /**
     * @param targets each target's comparison; its {@code cut} is the live log's cut (where the stitch ended, and what
     *                the shadow's group has committed on the live inputs for promote)
     */
    record Summary(String shadowId, String result, long divergences, long durationMs, Map<String, Long> snapshots,
                   List<Stitcher.Stitch> stitches, List<Report.TargetReport> targets) {
    }

    /** Where a backfill's summary is kept (promote reads it as it reads a rebuild's). */
    static Path file(Path data, String shadowId) {
        return data.resolve("replay").resolve(shadowId + ".backfill.json");
    }

    @Override
    public Integer call() throws Exception {
        List<Target> targets = switch (what.trim().toLowerCase(Locale.ROOT)) {
            case "serving" -> List.of(Target.SERVING);
            case "decisions" -> List.of(Target.DECISIONS);
            case "all" -> List.of(Target.DECISIONS, Target.SERVING);
            case "cep" -> throw new ReplayCli.BadInput("backfill rebuilds serving, decisions or all, not cep: the CEP job is "
                    + "rebuilt from the log (./streamhouse replay rebuild cep)");
            default -> throw new ReplayCli.BadInput("unknown projection '" + what + "': backfill rebuilds serving, decisions or all");
        };
        if (maxDiffs < 0 || timeoutSeconds < 1 || liveTimeoutSeconds < 1) {
            throw new ReplayCli.BadInput("--max-diffs must be 0 or more, --timeout and --live-timeout at least 1");
        }
        String shadowId = ReplayCli.requireShadowId(id != null ? id
                : DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now()));
        PrintStream out = parent.out();
        Endpoints endpoints = stack.endpoints();
        Map<String, String> catalogProperties = catalogProperties();
        ReplayCli.Stack.requireRegistry(endpoints);
        Path record = file(stack.data(), shadowId);
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        Instant began = Instant.now();
        try (Admin admin = stack.admin(endpoints);
             CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(endpoints.registryUrl())) {
            TopicSerdes serdes = new RegistryTopicSerdes(registry);
            for (Target target : targets) {
                String app = target.shadowApplicationId(shadowId), liveId = liveId(target);
                if (Files.exists(record) || Files.exists(Records.file(stack.data(), shadowId)) || Groups.exists(admin, app)
                        || !Groups.topicsWithPrefix(admin, app + "-").isEmpty() || !Groups.topicsWithPrefix(admin, app + ".").isEmpty()) {
                    throw new ReplayCli.BadInput("the shadow '" + shadowId + "' already exists (" + app + "): choose another --id, or "
                            + "./streamhouse replay discard " + shadowId);
                }
                if (!Groups.exists(admin, liveId)) {
                    throw new Endpoints.EnvironmentException("the live application " + liveId + " has no consumer group on "
                            + endpoints.bootstrapServers() + ": is the api running? (--" + target.label() + "-app-id)");
                }
            }
            // Cut, read every table and refuse gaps before anything is created: a refusal leaves nothing behind.
            LakeRows lake = new LakeRows(catalogProperties);
            Map<String, LakeRows.Snapshotted> tables = new LinkedHashMap<>();
            Map<String, Long> snapshots = new TreeMap<>();
            List<BackfillPlan> plans = new ArrayList<>();
            for (Target target : targets) {
                plans.add(BackfillPlan.take(target, liveId(target), target.shadowApplicationId(shadowId), admin, lake, tables, snapshots,
                        asOf, liveTimeoutSeconds, liveDecisionsTopic(), !decisionsOutputPrefix.isEmpty()));
            }
            if (!json) {
                plans.forEach(plan -> out.printf(Locale.ROOT, "%s: cut at the inputs' ends now, %,d offsets on %d partitions; shadow %s%n",
                        plan.target().label(), plan.liveCut().span(), plan.liveCut().offsets().size(), plan.app()));
                out.printf(Locale.ROOT, "lake snapshots %s%n", snapshots);
            }
            Progress progress = json ? Progress.none() : Progress.to(parent.err(), System.console() != null);
            // Each target stitches its own inputs and rebuilds its own shadow: side by side, reported in target order.
            List<java.util.concurrent.Callable<Map.Entry<List<Stitcher.Stitch>, Report.TargetReport>>> jobs = new ArrayList<>();
            for (BackfillPlan plan : plans) {
                jobs.add(() -> {
                    List<Stitcher.Stitch> stitched = Stitcher.stitch(admin, endpoints.bootstrapServers(), serdes, plan, tables, timeout);
                    if (!json) {
                        stitched.forEach(s -> out.printf(Locale.ROOT, "  %-36s p%d: lake %,d rows to offset %d + log %,d from %d (log starts %d) = %,d "
                                        + "stitched; %,d rows in both %s; read back %s%n", s.topic(), s.partition(), s.lakeRows(), s.lakeLastOffset(),
                                s.logRecords(), s.lakeLastOffset() + 1, s.logStart(), s.stitched(), s.overlapRows(),
                                s.overlapEqual() ? "equal" : "DIFFER, first at " + s.overlapDifference(), s.readBackEqual() ? "exact" : "DIFFERS"));
                    }
                    long inexact = stitched.stream().filter(s -> !s.exact()).count();
                    return Map.entry(stitched, rebuild(plan, inexact, admin, endpoints, serdes, timeout, progress));
                });
            }
            List<Stitcher.Stitch> stitches = new ArrayList<>();
            List<Report.TargetReport> reports = new ArrayList<>();
            for (var done : SideBySide.run("replay-backfill", jobs)) {
                stitches.addAll(done.getKey());
                reports.add(done.getValue());
            }
            long divergences = reports.stream().mapToLong(Report.TargetReport::divergences).sum();
            Summary summary = new Summary(shadowId, divergences == 0 ? "EQUAL" : "DIVERGENT", divergences,
                    Duration.between(began, Instant.now()).toMillis(), snapshots, stitches, reports);
            Files.createDirectories(record.getParent());
            Records.JSON.writeValue(record.toFile(), summary);
            parent.summary(summary);
            if (json) {
                out.println(Records.JSON.writeValueAsString(summary));
            } else {
                Records.print(new Report.Summary(shadowId, summary.result(), divergences, summary.durationMs(), reports), out);
                long inexact = stitches.stream().filter(s -> !s.exact()).count();
                if (inexact > 0) {
                    out.printf(Locale.ROOT, "  %d partitions were not stitched exactly (see above)%n", inexact);
                }
            }
            return divergences == 0 ? ReplayCli.EQUAL : ReplayCli.DIVERGENT;
        }
    }

    private String liveId(Target target) throws IOException {
        return switch (target) {
            case SERVING -> servingAppId != null ? servingAppId : stack.liveServingId();
            case DECISIONS -> decisionsAppId;
        };
    }

    private String liveDecisionsTopic() {
        return decisionsOutputPrefix + Topics.TRANSACTION_DECISIONS.name();
    }

    /** Runs the target's topology over its stitched inputs, compares it with live, and leaves it promotable. */
    private Report.TargetReport rebuild(BackfillPlan plan, long inexact, Admin admin, Endpoints endpoints, TopicSerdes serdes, Duration timeout,
                                        Progress progress) throws Exception {
        Target target = plan.target();
        String app = plan.app(), inputPrefix = inputPrefix(app);
        Cut shadowCut = Cut.take(admin, target.inputTopics().stream().map(t -> inputPrefix + t).toList());
        Path stateDir = stack.data().resolve("replay").resolve("state");
        Files.createDirectories(stateDir);
        OutputTopics outputs = Target.shadowOutputs(app).withInputs(inputPrefix);
        // The stitched copy of alerts.fraud has offsets of its own, so live's alertsSeen offsets do not apply to it: a
        // backfill decides with every alert before the cut (docs/backfill.md).
        ShadowRun.Result result = ShadowRun.run(target, app, outputs, shadowCut, admin, endpoints.bootstrapServers(), serdes,
                stateDir, timeout, progress, io.streamhouse.detection.decision.DecisionTopology.AlertsSeenBy.ALL);
        // The stitch ended at the live cut: that is where a promoted shadow continues on the live inputs.
        ShadowRun.resetToCut(admin, app, target.committedPart(plan.liveCut(), OutputTopics.LIVE));
        Verify verify = new Verify(new TopicReader(endpoints.bootstrapServers(), admin, timeout), serdes, maxDiffs);
        OutputTopics liveOutputs = target == Target.DECISIONS ? new OutputTopics(decisionsOutputPrefix) : OutputTopics.LIVE;
        Verify.Side live = new Verify.Side(plan.liveId(), liveOutputs);
        Verify.Side shadow = new Verify.Side(app, outputs);
        List<Report.StoreReport> stores = verify.compareAll(target.stores(), live, shadow);
        Report.DecisionReport decisions = target == Target.DECISIONS ? compareDecisions(plan, verify, shadowCut, shadow) : null;
        long divergences = stores.stream().mapToLong(Report.StoreReport::divergentKeys).sum() + inexact
                + (decisions == null ? 0 : decisions.divergent());
        Map<String, Long> cutView = new TreeMap<>();
        plan.liveCut().offsets().forEach((tp, o) -> cutView.put(tp.toString(), o));
        return new Report.TargetReport(target.label(), plan.liveId(), app, result.events(), result.dropped(),
                result.duration().toMillis(), result.eventsPerSecond(), cutView, stores, decisions, null, divergences);
    }

    /**
     * Every stitched request's decision, recomputed by the shadow for the lake part too, against live's: from live's
     * decisions log, and from the lake's decisions table for the offsets that log no longer holds.
     */
    private Report.DecisionReport compareDecisions(BackfillPlan plan, Verify verify, Cut shadowCut, Verify.Side shadow) throws IOException {
        String requests = inputPrefix(plan.app()) + Topics.TRANSACTION_REQUESTS.name();
        Map<TopicPartition, Long> requestEnds = new HashMap<>();
        shadowCut.offsets().forEach((tp, end) -> {
            if (tp.topic().equals(requests)) {
                requestEnds.put(tp, end);
            }
        });
        Set<String> transactions = verify.transactions(requestEnds);
        Map<String, List<TransactionDecision>> live = new TreeMap<>(verify.decisions(liveDecisionsTopic(), transactions));
        if (plan.liveDecisions() != null) {
            SpecificDatumReader<TransactionDecision> reader = new SpecificDatumReader<>(TransactionDecision.class);
            for (var partition : plan.liveDecisions().byPartition().entrySet()) {
                long logStart = plan.liveDecisionsCut().earliest()
                        .getOrDefault(new TopicPartition(liveDecisionsTopic(), partition.getKey()), 0L);
                for (LakeRows.Row row : partition.getValue()) {
                    if (row.offset() >= logStart) {
                        break;
                    }
                    TransactionDecision d = reader.read(null, DecoderFactory.get().binaryDecoder(row.avro(), null));
                    if (transactions.contains(d.getTransactionId())) {
                        live.computeIfAbsent(d.getTransactionId(), k -> new ArrayList<>()).add(Verify.comparable(d));
                    }
                }
            }
        }
        return verify.compareDecisions(transactions, live,
                verify.decisions(shadow.outputs().of(Topics.TRANSACTION_DECISIONS.name()), transactions));
    }

    static String inputPrefix(String shadowApplicationId) {
        return shadowApplicationId + ".input.";
    }

    private Map<String, String> catalogProperties() {
        if (catalog != null && !catalog.isEmpty()) {
            return catalog;
        }
        Path file = stack.data().resolve(Endpoints.FILE);
        Map<String, String> found = new HashMap<>();
        if (Files.isRegularFile(file)) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            } catch (IOException e) {
                throw new Endpoints.EnvironmentException("cannot read " + file + ": " + e.getMessage());
            }
            p.stringPropertyNames().stream().filter(k -> k.startsWith(CATALOG_PREFIX))
                    .forEach(k -> found.put(k.substring(CATALOG_PREFIX.length()), p.getProperty(k)));
        }
        if (found.isEmpty()) {
            throw new Endpoints.EnvironmentException("no lake catalog: " + file + " has no " + CATALOG_PREFIX + "* keys (a stack "
                    + "started by ./streamhouse up writes them) and no --lake-catalog key=value was given");
        }
        return found;
    }
}
