package io.streamhouse.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.PlatformOptions;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.projections.serving.ServingStores;
import io.streamhouse.projections.serving.ServingTopology;
import io.streamhouse.replay.ReplayHarness.Run;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The replay CLI's rule-change finding and its backfills, on a platform of its own (it deletes the logs' heads, which
 * {@link ReplayRebuildIT}'s live applications and shadows read), so the two classes run side by side: the generator's
 * seeded traffic is decided by a live decision application and projected by a live serving application, and lands in
 * the lake, whose Connect worker starts with the platform. In order: a rule changed mid-log is reported by a rebuild;
 * then, with the logs' heads deleted, backfills of serving and decisions from the lake + log equal live, and a
 * backfilled serving shadow, promoted, continues from the live cut.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplayBackfillIT {
    private static final String RUN = Long.toString(System.nanoTime() % 1_000_000);
    private static final String LIVE_API = "replay-it-api-" + RUN;
    /** Live runs for the backfills: serving, and decisions writing under its own prefix. */
    private static final String LIVE_SERVING_B = "replay-it-serving-b-" + RUN, LIVE_D = "replay-it-api-d-" + RUN;

    private static final java.util.Set<String> ALERT_STORES = ReplayHarness.ALERT_STORES;

    private static EmbeddedPlatform platform;
    private static ReplayHarness harness;
    private static TopicSerdes serdes;
    private static Admin admin;
    private static Path data;
    private static Generation generation;
    /** The lake the backfills read: its Connect worker starts, and its sink lands the log, while the live runs catch up. */
    private static CompletableFuture<Void> lake;

    @BeforeAll
    static void liveAppsDecideAndProjectTheGeneratorsTrafficAndTheLakeStarts() throws Exception {
        platform = EmbeddedPlatform.start(PlatformOptions.forTests());
        harness = ReplayHarness.withTraffic(platform, "replay-backfill-it-data");
        // After the traffic, so the lake's start (its control topic, its tables' child JVM) does not compete with the
        // first batches to the fresh broker's new partitions: beside it, a send has retried OUT_OF_ORDER_SEQUENCE_NUMBER
        // until its timeout (seen once, at load ~30).
        EmbeddedPlatform own = platform;
        lake = CompletableFuture.runAsync(() -> own.lake());
        serdes = harness.serdes;
        admin = harness.admin;
        data = harness.data;
        generation = harness.generation;
        long t0 = System.nanoTime();
        // The serving backfill's live run reads the whole log as it is and as it grows; it starts here, beside the
        // live decisions it reads, and is awaited where it is compared.
        start(LIVE_API, DecisionTopology.build(new DecisionTopology.Config(Clock.systemUTC()), serdes));
        start(LIVE_SERVING_B, ServingTopology.build(ServingTopology.Config.defaults(), serdes));
        awaitLiveAt(Target.DECISIONS, LIVE_API);
        System.out.printf("ReplayBackfillIT: live decisions caught up in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @AfterAll
    static void stop() {
        if (harness != null) {
            harness.close();
        }
        if (platform != null) {
            platform.close();
        }
    }

    private static KafkaStreams start(String applicationId, Topology topology) throws Exception {
        return harness.start(applicationId, topology);
    }

    private static void awaitLiveAt(Target target, String applicationId) throws Exception {
        harness.awaitLiveAt(target, applicationId);
    }

    private static KafkaProducer<String, byte[]> producer() {
        return harness.producer();
    }

    private static Run replay(String... args) {
        return ReplayHarness.replay(args);
    }

    private static Run rebuild(String what, String id) {
        return replay("rebuild", what, "--id", id, "--json", "--data", data.toString(),
                "--bootstrap-servers", platform.bootstrapServers(), "--registry-url", platform.schemaRegistryUrl().toString(),
                "--decisions-app-id", LIVE_API, "--timeout", "180", "--live-timeout", "120");
    }

    private static String[] stack(String... args) {
        return harness.stack(args);
    }

    private static JsonNode target(JsonNode summary, String target) {
        return ReplayHarness.target(summary, target);
    }

    private static JsonNode store(JsonNode target, String store) {
        return ReplayHarness.store(target, store);
    }

    /**
     * The finding written down in docs/replay.md ("Determinism of decisions"): a rule changed mid-log makes a
     * rebuild differ from live for every decision before the change, since the rebuild's rules global table starts at
     * the latest rules. Replay reports each of them, with the rule set versions as the reason.
     */
    @Test
    @Order(1)
    void aRuleChangedMidLogMakesEveryEarlierDecisionDifferWithTheReason() throws Exception {
        long before = generation.events().stream().filter(e -> e.kind() == EventKind.TRANSACTION).count();
        try (var producer = producer()) {
            var rule = DefaultRules.definitions().get(0);
            var next = io.streamhouse.domain.event.RuleDefinition.newBuilder(rule).setVersion(rule.getVersion() + 1).build();
            producer.send(new ProducerRecord<>(Topics.RULES.name(), next.getRuleId(),
                    serdes.valueSerde(Topics.RULES).serializer().serialize(Topics.RULES.name(), next))).get();
        }
        Generation after = Generator.generate(GeneratorConfig.defaults(12, 400));
        long later = 0;
        try (var sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : after.events()) {
                if (e.kind() == EventKind.TRANSACTION) {
                    sink.send(e);
                    later++;
                }
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(60).toNanos());
        }
        // For the decisions backfill: a live decision application over the whole log, started after the rule change
        // (so it decides everything under the rules a shadow reads) and before any head is deleted; it catches up while
        // this rebuild runs.
        ShadowRun.createOutputs(admin, Target.DECISIONS, LIVE_D);
        start(LIVE_D, DecisionTopology.build(new DecisionTopology.Config(Clock.systemUTC(), Target.shadowOutputs(LIVE_D)), serdes));
        awaitLiveAt(Target.DECISIONS, LIVE_API);

        Run run = rebuild("decisions", "rules-" + RUN);

        assertThat(run.exit()).as(run.err() + run.out()).isEqualTo(ReplayCli.DIVERGENT);
        JsonNode decisions = target(run.json(), "decisions").get("decisions");
        assertThat(decisions.get("transactions").asLong()).isEqualTo(before + later);
        assertThat(decisions.get("divergent").asLong()).as("every decision before the change, none after").isEqualTo(before);
        assertThat(decisions.get("differentRuleSetVersion").asLong()).isEqualTo(before);
        assertThat(decisions.get("differences").get(0).get("reason").asText()).contains("rule set v").contains("latest rules");
    }

    /**
     * issue #22 item 3: the serving inputs land in the lake; later records follow on the log only; then retention
     * "drops" the first half of what landed (deleteRecords). A backfill at the snapshot taken before the later
     * records stitches lake + log into inputs that are, partition by partition, the original log byte for byte
     * (count and digest taken before the deletion), and the projections rebuilt from them equal a live run over the
     * whole log. A gap (the log deleted past what the snapshot holds) and a time before any snapshot are refused.
     */
    @Test
    @Order(2)
    void backfillStitchesTheLakeToTheLogExactlyAndEqualsLive() throws Exception {
        lake.get(3, java.util.concurrent.TimeUnit.MINUTES);
        platform.lake();
        String liveB = LIVE_SERVING_B;
        awaitLiveAt(Target.SERVING, liveB);
        awaitLiveAt(Target.DECISIONS, LIVE_D);
        Map<TopicPartition, Long> landedEnds = Cut.take(admin, Target.SERVING.inputTopics()).offsets();
        var reader = new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60));
        Map<TopicPartition, Long> logCounts = new java.util.HashMap<>();
        reader.read(landedEnds, r -> logCounts.merge(new TopicPartition(r.topic(), r.partition()), 1L, Long::sum));
        Map<String, String> catalogProperties = platform.lakeCatalog();
        var catalog = org.apache.iceberg.CatalogUtil.buildIcebergCatalog(io.streamhouse.domain.topic.LakeNames.CATALOG, catalogProperties,
                new org.apache.hadoop.conf.Configuration());
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String topic : Target.SERVING.inputTopics()) {
                var table = catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(io.streamhouse.domain.topic.LakeNames.NAMESPACE,
                        io.streamhouse.domain.topic.LakeNames.tableName(topic)));
                table.refresh();
                Map<TopicPartition, Long> rows = new java.util.HashMap<>();
                if (table.currentSnapshot() != null) {
                    try (var it = org.apache.iceberg.data.IcebergGenerics.read(table).select(io.streamhouse.domain.topic.LakeNames.PARTITION_COLUMN).build()) {
                        for (var r : it) {
                            rows.merge(new TopicPartition(topic, (Integer) r.getField(io.streamhouse.domain.topic.LakeNames.PARTITION_COLUMN)), 1L, Long::sum);
                        }
                    }
                }
                logCounts.forEach((tp, n) -> {
                    if (tp.topic().equals(topic)) {
                        assertThat(rows.getOrDefault(tp, 0L)).as("landed rows of " + tp).isEqualTo(n);
                    }
                });
            }
        });
        java.time.Instant snapshotTime = java.time.Instant.now();

        // Later records: on the log only (the snapshot as of snapshotTime does not hold them).
        Generation later = Generator.generate(GeneratorConfig.defaults(13, 300));
        try (var sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : later.events()) {
                sink.send(e);
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(60).toNanos());
        }
        awaitLiveAt(Target.DECISIONS, LIVE_API);
        awaitLiveAt(Target.SERVING, liveB);
        Map<TopicPartition, Long> ends = Cut.take(admin, Target.SERVING.inputTopics()).offsets();
        Map<TopicPartition, RecordDigest> original = new java.util.HashMap<>();
        Map<TopicPartition, Long> originalCounts = new java.util.HashMap<>();
        reader.read(ends, r -> {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            original.computeIfAbsent(tp, x -> new RecordDigest()).add(r.key(), RecordDigest.canonical(r.topic(), r.value()));
            originalCounts.merge(tp, 1L, Long::sum);
        });
        Map<TopicPartition, org.apache.kafka.clients.admin.RecordsToDelete> half = new java.util.HashMap<>();
        landedEnds.forEach((tp, end) -> {
            if (end > 1) {
                half.put(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(end / 2));
            }
        });
        admin.deleteRecords(half).all().get();
        assertThat(half).as("records were deleted from the heads").isNotEmpty();

        String id = "backfill-" + RUN;
        Run run = backfill(id, snapshotTime, liveB, catalogProperties, false);
        System.out.println("replay backfill output:\n" + run.out());

        assertThat(run.exit()).as(run.err() + run.out()).isZero();
        assertThat(run.out()).contains("Result: EQUAL (0 divergences)");
        JsonNode summary = Records.JSON.readTree(data.resolve("replay").resolve(id + ".backfill.json").toFile());
        assertThat(summary.get("result").asText()).isEqualTo("EQUAL");
        long fromLake = 0, fromLog = 0;
        for (JsonNode s : summary.get("stitches")) {
            TopicPartition tp = new TopicPartition(s.get("topic").asText(), s.get("partition").asInt());
            long expected = originalCounts.getOrDefault(tp, 0L);
            assertThat(s.get("stitched").asLong()).as("stitched records of " + tp + ", nothing missing, nothing twice").isEqualTo(expected);
            assertThat(s.get("lakeRows").asLong() + s.get("logRecords").asLong()).as(tp.toString()).isEqualTo(expected);
            assertThat(s.get("readBackEqual").asBoolean()).as(tp.toString()).isTrue();
            assertThat(s.get("overlapEqual").asBoolean()).as(tp + ": " + s.get("overlapDifference")).isTrue();
            if (half.containsKey(tp)) {
                assertThat(s.get("logStart").asLong()).isEqualTo(landedEnds.get(tp) / 2);
                assertThat(s.get("lakeLastOffset").asLong()).as(tp + ": the snapshot ends before the later records").isLessThan(landedEnds.get(tp));
            }
            fromLake += s.get("lakeRows").asLong();
            fromLog += s.get("logRecords").asLong();
        }
        assertThat(fromLake).as("records only the lake still holds were rebuilt").isPositive();
        assertThat(fromLog).as("the later records came from the log").isPositive();
        // The stitched inputs are the original log, in order, partition by partition: byte for byte but for the order
        // of map entries, which the lake does not keep (RecordDigest.canonical).
        String inputs = Target.SERVING.shadowApplicationId(id) + ".input.";
        Map<TopicPartition, Long> stitchedEnds = new java.util.HashMap<>();
        ends.keySet().forEach(tp -> stitchedEnds.put(new TopicPartition(inputs + tp.topic(), tp.partition()), 0L));
        stitchedEnds.putAll(Groups.ends(admin, Target.SERVING.inputTopics().stream().map(t -> inputs + t).toList()));
        Map<TopicPartition, RecordDigest> stitched = new java.util.HashMap<>();
        reader.read(stitchedEnds, r -> stitched.computeIfAbsent(new TopicPartition(r.topic().substring(inputs.length()), r.partition()),
                x -> new RecordDigest()).add(r.key(), RecordDigest.canonical(r.topic().substring(inputs.length()), r.value())));
        ends.keySet().forEach(tp -> assertThat(stitched.getOrDefault(tp, new RecordDigest()).hex()).as("digest of " + tp)
                .isEqualTo(original.getOrDefault(tp, new RecordDigest()).hex()));
        JsonNode serving = target(summary, "serving");
        assertThat(serving.get("divergences").asLong()).isZero();
        assertThat(store(serving, ServingStores.PARCEL_TRACKING).get("keys").asLong()).isPositive();
        assertThat(store(serving, ServingStores.CUSTOMER_STATE).get("keys").asLong()).isPositive();

        // A gap: the log deleted past what the snapshot holds, on a partition the later records reached.
        TopicPartition gapped = ends.entrySet().stream().filter(e -> e.getValue() > landedEnds.get(e.getKey()) + 1)
                .map(Map.Entry::getKey).findFirst().orElseThrow();
        admin.deleteRecords(Map.of(gapped, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(landedEnds.get(gapped) + 1)))
                .all().get();
        Run gap = backfill("gap-" + RUN, snapshotTime, liveB, catalogProperties, true);
        assertThat(gap.exit()).as(gap.err() + gap.out()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(gap.err()).contains("gap in " + gapped).contains("in neither");
        assertThat(Groups.topicsWithPrefix(admin, Target.SERVING.shadowApplicationId("gap-" + RUN))).as("a refusal leaves nothing").isEmpty();

        Run before = backfill("early-" + RUN, java.time.Instant.parse("2000-01-01T00:00:00Z"), liveB, catalogProperties, true);
        assertThat(before.exit()).as(before.err()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(before.err()).contains("no snapshot as of 2000-01-01T00:00:00Z").contains("in neither");
        Run cep = replay(stack("backfill", "cep", "--lake-catalog", "uri=jdbc:nothing"));
        assertThat(cep.exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(cep.err()).contains("not cep").contains("rebuild cep");
        Run unknown = replay(stack("backfill", "parcels", "--lake-catalog", "uri=jdbc:nothing"));
        assertThat(unknown.exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(unknown.err()).contains("unknown projection 'parcels'");
        Run existing = backfill(id, snapshotTime, liveB, catalogProperties, true);
        assertThat(existing.exit()).as(existing.err()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(existing.err()).contains("already exists");
    }

    /**
     * issue #22 item 1's promote, of a backfilled shadow: the backfill left the live cut (where its stitch ended) as
     * its group's offsets on the live inputs; promoted and started as the api starts it (a fresh state directory), the
     * serving application restores the rebuilt stores and continues from the log exactly there, through new traffic,
     * to the same state as a live run over the whole log.
     */
    @Test
    @Order(3)
    void aBackfilledShadowIsPromotedAndContinuesFromTheLiveCut() throws Exception {
        String id = "backfill-" + RUN, app = Target.SERVING.shadowApplicationId(id);
        JsonNode cut = target(Records.JSON.readTree(Backfill.file(data, id).toFile()), "serving").get("cut");
        Map<TopicPartition, Long> committed = Groups.committed(admin, app);
        for (TopicPartition tp : Groups.ends(admin, Target.SERVING.inputTopics()).keySet()) {
            assertThat(cut.has(tp.toString())).as("the live cut of " + tp + " in the record").isTrue();
            assertThat(committed.get(tp)).as("the backfilled shadow's offset on the live " + tp).isEqualTo(cut.get(tp.toString()).asLong());
        }

        // A shadow missing its offset on one live partition would start it from the log's start: promote refuses it.
        TopicPartition one = Groups.ends(admin, List.of(Topics.PARCEL_SCANS.name())).keySet().iterator().next();
        admin.deleteConsumerGroupOffsets(app, java.util.Set.of(one)).all().get();
        Run refused = replay(stack("promote", id));
        assertThat(refused.exit()).as(refused.err()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(refused.err()).contains("no committed offset on " + one);
        admin.alterConsumerGroupOffsets(app, Map.of(one, new org.apache.kafka.clients.consumer.OffsetAndMetadata(committed.get(one))))
                .all().get();

        Run promote = replay(stack("promote", id));

        assertThat(promote.exit()).as(promote.err()).isZero();
        assertThat(Files.readString(data.resolve(ReplayCli.SERVING_ID_FILE)).trim()).isEqualTo(app);
        Generation after = Generator.generate(GeneratorConfig.defaults(15, 200));
        try (var sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : after.events()) {
                sink.send(e);
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(60).toNanos());
        }
        awaitLiveAt(Target.DECISIONS, LIVE_API);
        awaitLiveAt(Target.SERVING, LIVE_SERVING_B);
        start(app, ServingTopology.build(ServingTopology.Config.defaults(), serdes));
        awaitLiveAt(Target.SERVING, app);
        var verify = new Verify(new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60)), serdes, 5);
        for (Target.Store store : Target.SERVING.stores()) {
            var report = verify.compare(store, new Verify.Side(LIVE_SERVING_B, OutputTopics.LIVE), new Verify.Side(app, OutputTopics.LIVE));
            if (!ALERT_STORES.contains(store.name())) {
                assertThat(report.keys()).as(store.name()).isPositive();
            }
            assertThat(report.divergentKeys()).as(store.name() + ": " + report.differences()).isZero();
        }
    }

    /**
     * issue #22 item 3, decisions: the decision topology's inputs (and the fraud-alert table) landed, later traffic on
     * the log only, then the first half of what landed deleted. The backfill recomputes every decision, the lake's part
     * too, and they and the card activity and profiles equal a live run over the whole log. Against the api's own
     * decisions, whose log's head the serving backfill deleted, live's decisions are read from the lake there: every one is
     * found, and exactly those decided before the rule change differ, by their rule set.
     */
    @Test
    @Order(4)
    void aDecisionsBackfillRecomputesTheLakesDecisionsAndEqualsLive() throws Exception {
        List<String> inputs = Target.DECISIONS.inputTopics();
        List<String> landing = new ArrayList<>(inputs);
        landing.addAll(List.of(Topics.FRAUD_ALERTS.name(), Topics.TRANSACTION_DECISIONS.name()));
        Map<String, String> catalogProperties = platform.lakeCatalog();
        awaitLanded(catalogProperties, landing);
        Map<TopicPartition, Long> landedEnds = Cut.take(admin, landing).offsets();
        java.time.Instant snapshotTime = java.time.Instant.now();

        Generation later = Generator.generate(GeneratorConfig.defaults(16, 200));
        try (var sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : later.events()) {
                sink.send(e);
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(60).toNanos());
        }
        awaitLiveAt(Target.DECISIONS, LIVE_API);
        awaitLiveAt(Target.DECISIONS, LIVE_D);
        var reader = new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60));
        List<String> whole = List.of(Topics.TRANSACTION_REQUESTS.name(), Topics.REVIEW_OUTCOMES.name());
        Map<TopicPartition, Long> ends = Cut.take(admin, whole).offsets();
        Map<TopicPartition, RecordDigest> original = new java.util.HashMap<>();
        Map<TopicPartition, Long> originalCounts = new java.util.HashMap<>();
        java.util.Set<String> transactions = new java.util.HashSet<>();
        var requests = serdes.valueSerde(Topics.TRANSACTION_REQUESTS).deserializer();
        assertThat(Cut.take(admin, whole).earliest().values()).as("requests and reviews are whole before this test").containsOnly(0L);
        reader.read(ends, r -> {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            original.computeIfAbsent(tp, x -> new RecordDigest()).add(r.key(), RecordDigest.canonical(r.topic(), r.value()));
            originalCounts.merge(tp, 1L, Long::sum);
            if (r.topic().equals(Topics.TRANSACTION_REQUESTS.name())) {
                transactions.add(requests.deserialize(r.topic(), r.value()).getTransactionId());
            }
        });
        Map<TopicPartition, org.apache.kafka.clients.admin.RecordsToDelete> half = new java.util.HashMap<>();
        landedEnds.forEach((tp, end) -> {
            if (end > 1 && !tp.topic().equals(Topics.TRANSACTION_DECISIONS.name())) {
                half.put(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(end / 2));
            }
        });
        admin.deleteRecords(half).all().get();
        assertThat(half.keySet().stream().map(TopicPartition::topic).distinct()).as("records were deleted from the inputs' heads "
                + "(the generator writes no reviews)").contains(Topics.CUSTOMERS.name(), Topics.TRANSACTION_REQUESTS.name());

        String id = "backfill-d-" + RUN;
        long beforeTheRuleChange = generation.events().stream().filter(e -> e.kind() == EventKind.TRANSACTION).count();
        // The backfill against the api's own decisions (checked below) shares nothing with this one but what it reads:
        // both run side by side, as two SREs' backfills would.
        var againstTheApi = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> backfillDecisions("backfill-api-" + RUN, snapshotTime, LIVE_API, "", catalogProperties, true));
        Run run = backfillDecisions(id, snapshotTime, LIVE_D, Target.shadowOutputs(LIVE_D).of(""), catalogProperties, false);
        System.out.println("replay backfill decisions output:\n" + run.out());

        assertThat(run.exit()).as(run.err() + run.out()).isZero();
        assertThat(run.out()).contains("Result: EQUAL (0 divergences)");
        JsonNode summary = Records.JSON.readTree(Backfill.file(data, id).toFile());
        JsonNode decisions = target(summary, "decisions");
        assertThat(decisions.get("decisions").get("transactions").asLong()).as("every request, the lake's recomputed too")
                .isEqualTo(transactions.size());
        assertThat(decisions.get("decisions").get("divergent").asLong()).isZero();
        assertThat(store(decisions, DecisionTopology.CARD_ACTIVITY_STORE).get("keys").asLong()).isPositive();
        // The profiles are a global store read from the stitched shop.customers (not compared as a store): their effect
        // is in the decisions above, equal for every request.
        long fromLake = 0, fromLog = 0;
        java.util.Set<String> stitchedTopics = new java.util.TreeSet<>();
        for (JsonNode s : summary.get("stitches")) {
            TopicPartition tp = new TopicPartition(s.get("topic").asText(), s.get("partition").asInt());
            stitchedTopics.add(tp.topic());
            assertThat(s.get("stitched").asLong()).as(tp.toString()).isEqualTo(s.get("lakeRows").asLong() + s.get("logRecords").asLong());
            assertThat(s.get("readBackEqual").asBoolean()).as(tp.toString()).isTrue();
            assertThat(s.get("overlapEqual").asBoolean()).as(tp + ": " + s.get("overlapDifference")).isTrue();
            if (originalCounts.containsKey(tp) || ends.containsKey(tp)) {
                assertThat(s.get("stitched").asLong()).as("stitched records of " + tp + ", nothing missing, nothing twice")
                        .isEqualTo(originalCounts.getOrDefault(tp, 0L));
            }
            if (tp.topic().equals(Topics.TRANSACTION_REQUESTS.name())) {
                fromLake += s.get("lakeRows").asLong();
                fromLog += s.get("logRecords").asLong();
            }
        }
        assertThat(stitchedTopics).as("the stream inputs and the fraud-alert table").containsAll(inputs).contains(Topics.FRAUD_ALERTS.name());
        assertThat(fromLake).as("requests only the lake still holds were decided again").isPositive();
        assertThat(fromLog).as("the later requests came from the log").isPositive();
        String copies = Backfill.inputPrefix(Target.DECISIONS.shadowApplicationId(id));
        Map<TopicPartition, Long> stitchedEnds = new java.util.HashMap<>();
        ends.keySet().forEach(tp -> stitchedEnds.put(new TopicPartition(copies + tp.topic(), tp.partition()), 0L));
        stitchedEnds.putAll(Groups.ends(admin, whole.stream().map(t -> copies + t).toList()));
        Map<TopicPartition, RecordDigest> stitched = new java.util.HashMap<>();
        reader.read(stitchedEnds, r -> stitched.computeIfAbsent(new TopicPartition(r.topic().substring(copies.length()), r.partition()),
                x -> new RecordDigest()).add(r.key(), RecordDigest.canonical(r.topic().substring(copies.length()), r.value())));
        ends.keySet().forEach(tp -> assertThat(stitched.getOrDefault(tp, new RecordDigest()).hex()).as("digest of " + tp)
                .isEqualTo(original.getOrDefault(tp, new RecordDigest()).hex()));

        Run api = againstTheApi.get(5, java.util.concurrent.TimeUnit.MINUTES);
        assertThat(api.exit()).as(api.err() + api.out()).isEqualTo(ReplayCli.DIVERGENT);
        JsonNode apiDecisions = target(api.json(), "decisions").get("decisions");
        assertThat(apiDecisions.get("transactions").asLong()).isEqualTo(transactions.size());
        assertThat(apiDecisions.get("divergent").asLong()).as(apiDecisions.get("differences").toString()).isEqualTo(beforeTheRuleChange);
        // Each of them has a live decision to differ from: live's decisions all found, the log's deleted head in the lake.
        assertThat(apiDecisions.get("differentRuleSetVersion").asLong()).as("live's decisions all found (lake + log): "
                + apiDecisions.get("differences")).isEqualTo(beforeTheRuleChange);

        Run existing = backfillDecisions(id, snapshotTime, LIVE_D, Target.shadowOutputs(LIVE_D).of(""), catalogProperties, true);
        assertThat(existing.exit()).as(existing.err()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(existing.err()).contains("already exists");
        Run early = backfillDecisions("early-d-" + RUN, java.time.Instant.parse("2000-01-01T00:00:00Z"), LIVE_D,
                Target.shadowOutputs(LIVE_D).of(""), catalogProperties, true);
        assertThat(early.exit()).as(early.err()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(early.err()).contains("no snapshot as of 2000-01-01T00:00:00Z").contains("in neither");
        assertThat(Groups.topicsWithPrefix(admin, Target.DECISIONS.shadowApplicationId("early-d-" + RUN))).as("a refusal leaves nothing").isEmpty();
    }

    /** Until each partition's records on the log, from its start, are all rows of the topic's table. */
    private static void awaitLanded(Map<String, String> catalogProperties, List<String> topics) throws Exception {
        var catalog = org.apache.iceberg.CatalogUtil.buildIcebergCatalog(io.streamhouse.domain.topic.LakeNames.CATALOG, catalogProperties,
                new org.apache.hadoop.conf.Configuration());
        var reader = new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60));
        Map<TopicPartition, java.util.Set<Long>> onTheLog = new java.util.HashMap<>();
        reader.read(Cut.take(admin, topics).offsets(), r -> onTheLog.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
                x -> new java.util.HashSet<>()).add(r.offset()));
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String topic : topics) {
                var table = catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(io.streamhouse.domain.topic.LakeNames.NAMESPACE,
                        io.streamhouse.domain.topic.LakeNames.tableName(topic)));
                table.refresh();
                Map<TopicPartition, java.util.Set<Long>> rows = new java.util.HashMap<>();
                if (table.currentSnapshot() != null) {
                    try (var it = org.apache.iceberg.data.IcebergGenerics.read(table)
                            .select(io.streamhouse.domain.topic.LakeNames.PARTITION_COLUMN, io.streamhouse.domain.topic.LakeNames.OFFSET_COLUMN).build()) {
                        for (var r : it) {
                            rows.computeIfAbsent(new TopicPartition(topic, (Integer) r.getField(io.streamhouse.domain.topic.LakeNames.PARTITION_COLUMN)),
                                    x -> new java.util.HashSet<>()).add((Long) r.getField(io.streamhouse.domain.topic.LakeNames.OFFSET_COLUMN));
                        }
                    }
                }
                onTheLog.forEach((tp, offsets) -> {
                    if (tp.topic().equals(topic)) {
                        assertThat(rows.getOrDefault(tp, java.util.Set.of())).as("landed offsets of " + tp).containsAll(offsets);
                    }
                });
            }
        });
    }

    private static Run backfillDecisions(String id, java.time.Instant asOf, String liveApi, String outputPrefix,
                                         Map<String, String> catalog, boolean json) {
        List<String> args = new ArrayList<>(List.of("backfill", "decisions", "--id", id, "--as-of", asOf.toString(),
                "--decisions-app-id", liveApi, "--timeout", "180", "--live-timeout", "120"));
        if (!outputPrefix.isEmpty()) {
            args.addAll(List.of("--decisions-output-prefix", outputPrefix));
        }
        if (json) {
            args.add("--json");
        }
        catalog.forEach((k, v) -> args.addAll(List.of("--lake-catalog", k + "=" + v)));
        return replay(stack(args.toArray(String[]::new)));
    }

    private static Run backfill(String id, java.time.Instant asOf, String liveServing, Map<String, String> catalog, boolean json) {
        List<String> args = new ArrayList<>(List.of("backfill", "serving", "--id", id, "--as-of", asOf.toString(),
                "--serving-app-id", liveServing, "--timeout", "180"));
        if (json) {
            args.add("--json");
        }
        catalog.forEach((k, v) -> args.addAll(List.of("--lake-catalog", k + "=" + v)));
        return replay(stack(args.toArray(String[]::new)));
    }
}
