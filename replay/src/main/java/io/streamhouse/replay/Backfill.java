package io.streamhouse.replay;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.domain.wire.WireFormat;
import io.streamhouse.domain.event.TransactionDecision;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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

    /** One input partition's stitch: what came from the lake, what from the log, and the checks on both. */
    record Stitch(String target, String topic, int partition, long lakeRows, long lakeLastOffset, long logStart, long cut, long logRecords,
                  long stitched, long overlapRows, boolean overlapEqual, String overlapDifference, String lakeDigest, String logDigest,
                  boolean readBackEqual) {
        boolean exact() {
            return overlapEqual && readBackEqual && stitched == lakeRows + logRecords;
        }
    }

    /**
     * @param targets each target's comparison; its {@code cut} is the live log's cut (where the stitch ended, and what
     *                the shadow's group has committed on the live inputs for promote)
     */
    record Summary(String shadowId, String result, long divergences, long durationMs, Map<String, Long> snapshots,
                   List<Stitch> stitches, List<Report.TargetReport> targets) {
    }

    /** Where a backfill's summary is kept (promote reads it as it reads a rebuild's). */
    static Path file(Path data, String shadowId) {
        return data.resolve("replay").resolve(shadowId + ".backfill.json");
    }

    /** What one target needs from the lake and the log, gathered (and gaps refused) before anything is created. */
    private record Plan(Target target, String liveId, String app, Cut liveCut, Cut stitchCut, List<Topic<String, ?>> topics,
                        LakeRows.Snapshotted liveDecisions, Cut liveDecisionsCut) {
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
            List<Plan> plans = new ArrayList<>();
            for (Target target : targets) {
                plans.add(plan(target, shadowId, admin, lake, tables, snapshots));
            }
            if (!json) {
                plans.forEach(plan -> out.printf(Locale.ROOT, "%s: cut at the inputs' ends now, %,d offsets on %d partitions; shadow %s%n",
                        plan.target().label(), plan.liveCut().span(), plan.liveCut().offsets().size(), plan.app()));
                out.printf(Locale.ROOT, "lake snapshots %s%n", snapshots);
            }
            Progress progress = json ? Progress.none() : Progress.to(parent.err(), System.console() != null);
            List<Stitch> stitches = new ArrayList<>();
            List<Report.TargetReport> reports = new ArrayList<>();
            for (Plan plan : plans) {
                List<Stitch> stitched = stitch(admin, endpoints.bootstrapServers(), serdes, plan, tables, timeout);
                if (!json) {
                    stitched.forEach(s -> out.printf(Locale.ROOT, "  %-36s p%d: lake %,d rows to offset %d + log %,d from %d (log starts %d) = %,d "
                                    + "stitched; %,d rows in both %s; read back %s%n", s.topic(), s.partition(), s.lakeRows(), s.lakeLastOffset(),
                            s.logRecords(), s.lakeLastOffset() + 1, s.logStart(), s.stitched(), s.overlapRows(),
                            s.overlapEqual() ? "equal" : "DIFFER, first at " + s.overlapDifference(), s.readBackEqual() ? "exact" : "DIFFERS"));
                }
                stitches.addAll(stitched);
                long inexact = stitched.stream().filter(s -> !s.exact()).count();
                reports.add(rebuild(plan, inexact, admin, endpoints, serdes, timeout, progress));
            }
            long divergences = reports.stream().mapToLong(Report.TargetReport::divergences).sum();
            Summary summary = new Summary(shadowId, divergences == 0 ? "EQUAL" : "DIVERGENT", divergences,
                    Duration.between(began, Instant.now()).toMillis(), snapshots, stitches, reports);
            Files.createDirectories(record.getParent());
            Records.JSON.writeValue(record.toFile(), summary);
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

    /** Takes the target's cut once live has reached it, reads its tables (each once) and refuses any gap. */
    private Plan plan(Target target, String shadowId, Admin admin, LakeRows lake, Map<String, LakeRows.Snapshotted> tables,
                      Map<String, Long> snapshots) throws Exception {
        String liveId = liveId(target), app = target.shadowApplicationId(shadowId);
        Cut liveCut = Cut.take(admin, target.inputTopics());
        if (!Groups.awaitCaughtUp(admin, liveId, target.committedPart(liveCut, OutputTopics.LIVE), target.repartitionTopics(liveId), Duration.ofSeconds(liveTimeoutSeconds),
                left -> { }, () -> false)) {
            throw new Endpoints.EnvironmentException("the live application " + liveId + " has not reached the cut within "
                    + liveTimeoutSeconds + " s (--live-timeout): is it running and keeping up?");
        }
        List<Topic<String, ?>> topics = new ArrayList<>(target.inputs());
        topics.addAll(target.globalInputs());
        // The global tables are read whole: stitched to their ends now, which live has read too (it reads them as they come).
        Cut globals = Cut.take(admin, target.globalInputs().stream().map(Topic::name).toList());
        Map<TopicPartition, Long> offsets = new HashMap<>(liveCut.offsets()), earliest = new HashMap<>(liveCut.earliest());
        offsets.putAll(globals.offsets());
        earliest.putAll(globals.earliest());
        Cut stitchCut = new Cut(offsets, earliest);
        for (Topic<String, ?> topic : topics) {
            LakeRows.Snapshotted rows = tables.computeIfAbsent(topic.name(), t -> lake.read(t, SpecificData.get().getSchema(topic.valueType()), asOf));
            snapshots.put(rows.table(), rows.snapshotId() == null ? -1L : rows.snapshotId());
            requireNoGap(topic, rows, stitchCut);
        }
        LakeRows.Snapshotted liveDecisions = null;
        Cut liveDecisionsCut = null;
        if (target == Target.DECISIONS) {
            Cut rules = Cut.take(admin, List.of(Topics.RULES.name()));
            rules.earliest().forEach((tp, start) -> {
                if (start > 0) {
                    throw new ReplayCli.BadInput(tp + " starts at offset " + start + ": the rules are read whole from the log (a "
                            + "compacted topic keeps every rule's latest version from offset 0), and records were deleted from it");
                }
            });
            // Live's decisions, compared by transaction id: where their log no longer reaches back, from the lake.
            liveDecisionsCut = Cut.take(admin, List.of(liveDecisionsTopic()));
            if (liveDecisionsCut.earliest().values().stream().anyMatch(start -> start > 0)) {
                if (!decisionsOutputPrefix.isEmpty()) {
                    throw new ReplayCli.BadInput(liveDecisionsTopic() + " no longer starts at offset 0, and only the live topics land "
                            + "in the lake: live's decisions cannot all be read");
                }
                liveDecisions = tables.computeIfAbsent(Topics.TRANSACTION_DECISIONS.name(),
                        t -> lake.read(t, SpecificData.get().getSchema(Topics.TRANSACTION_DECISIONS.valueType()), asOf));
                snapshots.put(liveDecisions.table(), liveDecisions.snapshotId() == null ? -1L : liveDecisions.snapshotId());
                requireNoGap(Topics.TRANSACTION_DECISIONS, liveDecisions, liveDecisionsCut);
            }
        }
        return new Plan(target, liveId, app, liveCut, stitchCut, topics, liveDecisions, liveDecisionsCut);
    }

    /** Runs the target's topology over its stitched inputs, compares it with live, and leaves it promotable. */
    private Report.TargetReport rebuild(Plan plan, long inexact, Admin admin, Endpoints endpoints, TopicSerdes serdes, Duration timeout,
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
    private Report.DecisionReport compareDecisions(Plan plan, Verify verify, Cut shadowCut, Verify.Side shadow) throws IOException {
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

    /** A partition whose log starts after the snapshot's next offset lost records nobody holds: refuse, name it. */
    private static void requireNoGap(Topic<String, ?> topic, LakeRows.Snapshotted rows, Cut cut) {
        for (int p = 0; p < topic.partitions(); p++) {
            TopicPartition tp = new TopicPartition(topic.name(), p);
            long logStart = cut.earliest().getOrDefault(tp, 0L);
            long next = next(rows, p, cut.offsets().getOrDefault(tp, 0L));
            if (logStart > 0 && rows.snapshotId() == null) {
                throw new ReplayCli.BadInput(rows.missing() + ", and the log of " + tp + " starts at offset " + logStart
                        + ": offsets 0.." + (logStart - 1) + " are in neither");
            }
            if (logStart > next) {
                throw new ReplayCli.BadInput(String.format(Locale.ROOT, "gap in %s: the log starts at offset %d, but the lake's snapshot %d "
                        + "of %s holds offsets only to %d: offsets %d..%d are in neither (take a later snapshot, or the records are lost)",
                        tp, logStart, rows.snapshotId(), rows.table(), next - 1, next, logStart - 1));
            }
        }
    }

    /** The first offset the log has to supply: one past the last lake row before the cut. */
    private static long next(LakeRows.Snapshotted rows, int partition, long cut) {
        long last = -1;
        for (LakeRows.Row r : rows.byPartition().getOrDefault(partition, List.of())) {
            if (r.offset() < cut) {
                last = r.offset();
            }
        }
        return last + 1;
    }

    private static List<Stitch> stitch(Admin admin, String bootstrap, TopicSerdes serdes, Plan plan,
                                       Map<String, LakeRows.Snapshotted> tables, Duration timeout) throws Exception {
        String inputPrefix = inputPrefix(plan.app());
        List<NewTopic> create = plan.topics().stream().map(t -> new NewTopic(inputPrefix + t.name(), t.partitions(), (short) -1)
                .configs(t.configs())).toList();
        try {
            admin.createTopics(create).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot create the shadow's input topics: " + e.getMessage(), e);
        }
        List<Stitch> stitches = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.REPLAY)
                .producer(bootstrap, Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 20)), new ByteArraySerializer(), new ByteArraySerializer());
             KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            for (Topic<String, ?> topic : plan.topics()) {
                stitches.addAll(stitchTopic(producer, consumer, serdes, plan.target(), topic, tables.get(topic.name()), plan.stitchCut(),
                        inputPrefix, timeout));
            }
            producer.flush();
            for (int i = 0; i < stitches.size(); i++) {
                stitches.set(i, readBack(consumer, stitches.get(i), inputPrefix, timeout));
            }
        }
        return stitches;
    }

    private static <V> List<Stitch> stitchTopic(KafkaProducer<byte[], byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
                                                TopicSerdes serdes, Target target, Topic<String, V> topic, LakeRows.Snapshotted rows, Cut cut,
                                                String inputPrefix, Duration timeout) throws Exception {
        Schema schema = SpecificData.get().getSchema(topic.valueType());
        SpecificDatumReader<V> reader = new SpecificDatumReader<>(schema);
        Serializer<V> serializer = serdes.valueSerde(topic).serializer();
        Integer schemaId = null;
        List<Stitch> out = new ArrayList<>();
        for (int p = 0; p < topic.partitions(); p++) {
            TopicPartition tp = new TopicPartition(topic.name(), p);
            long end = cut.offsets().getOrDefault(tp, 0L), logStart = cut.earliest().getOrDefault(tp, 0L);
            long next = next(rows, p, end);
            Digest lakeDigest = new Digest();
            Map<Long, byte[][]> lakeInLog = new HashMap<>();
            long lakeRows = 0, previous = -1;
            String copy = inputPrefix + topic.name();
            for (LakeRows.Row r : rows.byPartition().getOrDefault(p, List.of())) {
                if (r.offset() >= end) {
                    break;
                }
                if (r.offset() == previous) {
                    throw new Endpoints.EnvironmentException(rows.table() + " holds offset " + r.offset() + " of " + tp
                            + " twice at snapshot " + rows.snapshotId() + ": the lake is not exactly once here, refusing to stitch it");
                }
                previous = r.offset();
                V value = reader.read(null, DecoderFactory.get().binaryDecoder(r.avro(), null));
                byte[] key = target.inputKey(topic, value).getBytes(StandardCharsets.UTF_8);
                if (schemaId == null) {
                    schemaId = WireFormat.schemaId(serializer.serialize(topic.name(), value), topic.name());
                }
                // The row's own Avro, not the generated object's re-encoding: a generated class reads a map into a
                // HashMap, which would re-encode its entries in another order than the producer wrote them.
                byte[] wire = WireFormat.frame(schemaId, r.avro());
                producer.send(new ProducerRecord<>(copy, p, r.timestampMs(), key, wire));
                lakeDigest.add(key, canonical(topic.name(), wire));
                lakeRows++;
                if (r.offset() >= logStart) {
                    lakeInLog.put(r.offset(), new byte[][]{key, wire});
                }
            }
            // The log: its records that the lake also holds are compared, those from `next` on are appended.
            Digest logDigest = new Digest();
            long logRecords = 0, overlapRows = 0;
            String firstDifference = null;
            if (logStart < end) {
                consumer.assign(List.of(tp));
                consumer.seek(tp, logStart);
                Instant deadline = Instant.now().plus(timeout);
                while (consumer.position(tp) < end) {
                    if (Instant.now().isAfter(deadline)) {
                        throw new Endpoints.EnvironmentException("reading " + tp + " did not reach the cut " + end + " within " + timeout.toSeconds() + " s");
                    }
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.offset() >= end) {
                            continue;
                        }
                        if (r.offset() < next) {
                            byte[][] lakeRow = lakeInLog.remove(r.offset());
                            overlapRows++;
                            String difference = lakeRow == null ? "in the log, not in the lake"
                                    : !java.util.Arrays.equals(lakeRow[0], r.key()) ? "keys differ"
                                    : !java.util.Arrays.equals(canonical(topic.name(), lakeRow[1]), canonical(topic.name(), r.value()))
                                    ? "values differ (lake " + lakeRow[1].length + " bytes, log " + r.value().length + ")" : null;
                            if (difference != null && firstDifference == null) {
                                firstDifference = "offset " + r.offset() + ": " + difference;
                            }
                        } else {
                            producer.send(new ProducerRecord<>(copy, p, r.timestamp(), r.key(), r.value(), r.headers()));
                            logDigest.add(r.key(), canonical(topic.name(), r.value()));
                            logRecords++;
                        }
                    }
                }
                consumer.assign(List.of());
            }
            if (!lakeInLog.isEmpty() && firstDifference == null) {
                // the lake holds an offset the log (read_committed) does not: an aborted record, or not ours
                firstDifference = "offset " + lakeInLog.keySet().stream().min(Long::compare).orElseThrow() + ": in the lake, not in the log";
            }
            out.add(new Stitch(target.label(), topic.name(), p, lakeRows, next - 1, logStart, end, logRecords, -1, overlapRows, firstDifference == null,
                    firstDifference, lakeDigest.hex(), logDigest.hex(), false));
        }
        return out;
    }

    /** Reads the stitched partition back: its count and both parts' digests must be what was sent. */
    private static Stitch readBack(KafkaConsumer<byte[], byte[]> consumer, Stitch s, String inputPrefix, Duration timeout) {
        TopicPartition tp = new TopicPartition(inputPrefix + s.topic(), s.partition());
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long end = consumer.endOffsets(List.of(tp)).get(tp);
        Digest lake = new Digest(), log = new Digest();
        long count = 0;
        Instant deadline = Instant.now().plus(timeout);
        while (consumer.position(tp) < end) {
            if (Instant.now().isAfter(deadline)) {
                throw new Endpoints.EnvironmentException("reading back " + tp + " did not reach its end within " + timeout.toSeconds() + " s");
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                (count < s.lakeRows() ? lake : log).add(r.key(), canonical(s.topic(), r.value()));
                count++;
            }
        }
        consumer.assign(List.of());
        boolean equal = count == end && lake.hex().equals(s.lakeDigest()) && log.hex().equals(s.logDigest());
        return new Stitch(s.target(), s.topic(), s.partition(), s.lakeRows(), s.lakeLastOffset(), s.logStart(), s.cut(), s.logRecords(), count,
                s.overlapRows(), s.overlapEqual(), s.overlapDifference(), s.lakeDigest(), s.logDigest(), equal);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        return new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.REPLAY).consumer(bootstrap, Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000)), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * A record value as compared and digested: the wire header as it is, the Avro body re-encoded with every map's
     * entries sorted by key. The lake does not keep a map's entry order (the sink hands Parquet a Connect map), and
     * Avro's map encoding follows the writer's iteration order, so a round trip through the lake can reorder the
     * entries of, for instance, a decision reason's {@code facts}: the same value, other bytes. Everything else —
     * every field, every map entry, the schema id, the key — is compared byte for byte. A value that does not decode
     * with the topic's schema (a record for the dead-letter topic) is compared as it is.
     */
    static byte[] canonical(String topic, byte[] wire) {
        if (wire == null || wire.length < WireFormat.HEADER_SIZE || wire[0] != WireFormat.MAGIC_BYTE) {
            return wire;
        }
        Schema schema = Topics.all().stream().filter(t -> t.name().equals(topic)).findFirst()
                .map(t -> SpecificData.get().getSchema(t.valueType())).orElse(null);
        if (schema == null) {
            return wire;
        }
        try {
            Object value = new org.apache.avro.generic.GenericDatumReader<>(schema, schema, org.apache.avro.generic.GenericData.get())
                    .read(null, DecoderFactory.get().binaryDecoder(wire, WireFormat.HEADER_SIZE, wire.length - WireFormat.HEADER_SIZE, null));
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.write(wire, 0, WireFormat.HEADER_SIZE);
            var encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
            new org.apache.avro.generic.GenericDatumWriter<>(schema, org.apache.avro.generic.GenericData.get()).write(sorted(value), encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException | RuntimeException unreadable) {
            return wire;
        }
    }

    private static Object sorted(Object value) {
        if (value instanceof org.apache.avro.generic.GenericData.Record r) {
            for (Schema.Field f : r.getSchema().getFields()) {
                r.put(f.pos(), sorted(r.get(f.pos())));
            }
            return r;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(e -> out.add(sorted(e)));
            return out;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new TreeMap<>();
            map.forEach((k, v) -> out.put(k.toString(), sorted(v)));
            return out;
        }
        return value;
    }

    /** An order-dependent SHA-256 of a sequence of (key, value) records, each length-prefixed. */
    static final class Digest {
        private final MessageDigest sha;

        Digest() {
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        void add(byte[] key, byte[] value) {
            for (byte[] b : new byte[][]{key, value}) {
                sha.update(ByteBuffer.allocate(4).putInt(b == null ? -1 : b.length).array());
                if (b != null) {
                    sha.update(b);
                }
            }
        }

        String hex() {
            try {
                return HexFormat.of().formatHex(((MessageDigest) sha.clone()).digest()).substring(0, 16);
            } catch (CloneNotSupportedException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
