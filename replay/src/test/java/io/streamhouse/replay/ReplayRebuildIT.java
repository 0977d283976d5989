package io.streamhouse.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
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

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The replay CLI's rebuilds against the shared broker, as an SRE would run them: the generator's seeded traffic is
 * decided and projected by "live" applications (the api's topologies, under test application ids) and matched by a live
 * CEP job (CepMain in a child JVM, as ./streamhouse up runs it, writing its alerts under a test prefix so the decisions'
 * fraud-alert table stays as it was), then rebuilt into shadows and compared. In order: a rebuild equals live; a second
 * rebuild equals the first; records past the cut are not applied; a planted change in live state, and planted live
 * alerts, are reported; bad input and a missing stack get their exit codes; promote and discard. The lake and the
 * backfills are {@link ReplayBackfillIT}'s, on a platform of its own, beside this class.
 */
@WithStreamhousePlatform
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplayRebuildIT {
    private static final String RUN = Long.toString(System.nanoTime() % 1_000_000);
    private static final String LIVE_API = "replay-it-api-" + RUN, LIVE_SERVING = "replay-it-serving-" + RUN;
    private static final String FIRST = "first-" + RUN, SECOND = "second-" + RUN, PLANTED = "planted-" + RUN;
    private static final String LIVE_CEP = "replay-it-cep-" + RUN, LIVE_CEP_PREFIX = LIVE_CEP + ".";

    private static final java.util.Set<String> ALERT_STORES = ReplayHarness.ALERT_STORES;

    private static ReplayHarness harness;
    private static EmbeddedPlatform platform;
    private static TopicSerdes serdes;
    private static Admin admin;
    private static Path data;
    private static Generation generation;
    private static Process liveCep;

    @BeforeAll
    static void liveAppsDecideAndProjectTheGeneratorsTraffic() throws Exception {
        harness = ReplayHarness.withTraffic(SharedPlatform.get(), "replay-it-data");
        platform = harness.platform;
        serdes = harness.serdes;
        admin = harness.admin;
        data = harness.data;
        generation = harness.generation;
        long t0 = System.nanoTime();
        // The three live applications start side by side (the CEP child's JVM and MiniCluster start overlaps the
        // Streams applications' work); each is then awaited as before, serving only once decisions caught up, since
        // serving reads the decisions.
        start(LIVE_API, DecisionTopology.build(new DecisionTopology.Config(Clock.systemUTC()), serdes));
        start(LIVE_SERVING, ServingTopology.build(ServingTopology.Config.defaults(), serdes));
        Process child = launchLiveCep();
        liveCep = child;
        awaitLiveAt(Target.DECISIONS, LIVE_API);
        awaitLiveAt(Target.SERVING, LIVE_SERVING);
        long streams = System.nanoTime();
        awaitLiveCepReady(child);
        awaitLiveCepAtTheInputsEnds();
        System.out.printf("ReplayRebuildIT: live decisions and serving caught up in %d ms, the live CEP job in %d ms%n",
                (streams - t0) / 1_000_000, (System.nanoTime() - t0) / 1_000_000);
    }

    /** The live CEP job has committed (with a checkpoint) every input record there is now. */
    private static void awaitLiveCepAtTheInputsEnds() throws Exception {
        var input = new AlertVerify(new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60)), serdes, 0)
                .readInput(Cut.take(admin, CepShadow.inputTopics()), Duration.ofSeconds(30));
        assertThat(Groups.awaitCommitted(admin, LIVE_CEP, input.lastRecordEnds(), Duration.ofSeconds(180)))
                .as("the live CEP job caught up with its inputs").isTrue();
    }

    /** CepMain --local in a child JVM on the flink-job classpath, as the launcher's CepProcess starts it. */
    private static Process launchLiveCep() throws Exception {
        Path home = CepShadow.home();
        Path classpathFile = home.resolve(CepShadow.CLASSPATH_FILE);
        assertThat(classpathFile).as("built by -am (replay lists flink-job for the build order)").isRegularFile();
        CepShadow.createOutputs(admin, LIVE_CEP_PREFIX);
        Path log = data.resolve("live-cep.log");
        Path tmp = Files.createDirectories(data.resolve("live-cep-tmp"));
        // C1 only: this job matches a few thousand events, and C2's compiler thread took a quarter of its CPU
        // (20 of 78 s, measured) on a two-core machine the rebuilds under test need.
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + tmp, "-cp",
                home.resolve("deploy/flink-job/target/classes") + java.io.File.pathSeparator + Files.readString(classpathFile).trim(),
                "io.streamhouse.detection.cep.CepMain", "--local", "--watch-stdin", "--bootstrap", platform.bootstrapServers(),
                "--registry", platform.schemaRegistryUrl().toString(), "--group-id", LIVE_CEP, "--output-prefix", LIVE_CEP_PREFIX,
                "--parallelism", "2")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return child;
    }

    private static void awaitLiveCepReady(Process child) {
        Path log = data.resolve("live-cep.log");
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(child.isAlive()).as("live CEP job (log %s)", log).isTrue();
            assertThat(Files.readString(log)).contains("STREAMHOUSE-CEP-READY");
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (liveCep != null) {
            liveCep.getOutputStream().close(); // --watch-stdin: it cancels its job and exits
            if (!liveCep.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                liveCep.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
        if (harness != null) {
            harness.close();
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
                "--serving-app-id", LIVE_SERVING, "--decisions-app-id", LIVE_API, "--cep-group-id", LIVE_CEP,
                "--cep-output-prefix", LIVE_CEP_PREFIX, "--timeout", "180", "--live-timeout", "120");
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

    @Test
    @Order(1)
    void aRebuildOfDecisionsAndServingEqualsLive() throws Exception {
        Run run = rebuild("all", FIRST);

        assertThat(run.exit()).as(run.err() + run.out()).isZero();
        JsonNode summary = run.json();
        assertThat(summary.get("result").asText()).isEqualTo("EQUAL");
        assertThat(summary.get("divergences").asLong()).isZero();
        long transactions = generation.events().stream().filter(e -> e.kind() == EventKind.TRANSACTION).count();
        JsonNode decisions = target(summary, "decisions");
        assertThat(decisions.get("decisions").get("transactions").asLong()).isEqualTo(transactions);
        assertThat(decisions.get("events").asLong()).as("requests, customer changes and reviews applied")
                .isGreaterThanOrEqualTo(transactions);
        JsonNode serving = target(summary, "serving");
        long parcels = generation.events().stream().filter(e -> e.kind() == EventKind.PARCEL_SCAN).map(GeneratedEvent::key).distinct().count();
        assertThat(store(serving, ServingStores.PARCEL_TRACKING).get("keys").asLong()).isEqualTo(parcels);
        assertThat(store(serving, ServingStores.CUSTOMER_STATE).get("keys").asLong()).isPositive();
        assertThat(store(serving, ServingStores.VEHICLE_HEALTH).get("keys").asLong()).isPositive();
        assertThat(Files.exists(Records.file(data, FIRST))).as("the record promote checks").isTrue();
        JsonNode cep = target(summary, "cep");
        assertThat(cep.get("events").asLong()).as("the inputs before the cut, read").isGreaterThanOrEqualTo(transactions);
        JsonNode alerts = cep.get("alerts");
        assertThat(alerts.get("liveCompared").asLong()).as("settled alerts compared").isPositive();
        assertThat(alerts.get("shadowCompared").asLong()).isEqualTo(alerts.get("liveCompared").asLong());
        assertThat(alerts.get("divergent").asLong()).as(alerts.toString()).isZero();
    }

    @Test
    @Order(2)
    void replayingTheSameLogTwiceGivesIdenticalDecisionsAndStates() throws Exception {
        Run run = rebuild("all", SECOND);
        assertThat(run.exit()).as(run.err() + run.out()).isZero();

        try (var registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString())) {
            Verify verify = new Verify(new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60)),
                    new RegistryTopicSerdes(registry), 5);
            for (Target target : Target.values()) {
                String a = target.shadowApplicationId(FIRST), b = target.shadowApplicationId(SECOND);
                var first = new Verify.Side(a, Target.shadowOutputs(a));
                var second = new Verify.Side(b, Target.shadowOutputs(b));
                for (Target.Store store : target.stores()) {
                    var report = verify.compare(store, first, second);
                    if (!ALERT_STORES.contains(store.name())) {
                        assertThat(report.keys()).as(store.name()).isPositive();
                    }
                    assertThat(report.divergentKeys()).as(store.name() + ": " + report.differences()).isZero();
                }
                if (target == Target.DECISIONS) {
                    Cut all = Cut.take(admin, target.inputTopics());
                    var report = verify.compareDecisions(all, first, second);
                    assertThat(report.transactions()).isPositive();
                    assertThat(report.divergent()).as(report.differences().toString()).isZero();
                }
            }
            // The CEP job, twice over the same log to the same cut: every alert, settled or not, identical.
            var alerts = new AlertVerify(new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60)),
                    new RegistryTopicSerdes(registry), 5);
            var firstAlerts = alerts.alerts(CepShadow.topicPrefix(CepShadow.groupId(FIRST)));
            var secondAlerts = alerts.alerts(CepShadow.topicPrefix(CepShadow.groupId(SECOND)));
            assertThat(firstAlerts).isNotEmpty();
            assertThat(firstAlerts.values()).allMatch(sameId -> sameId.size() == 1);
            assertThat(secondAlerts).isEqualTo(firstAlerts);
        }
    }

    @Test
    @Order(3)
    void recordsPastTheCutAreReadButNotApplied() throws Exception {
        Cut cut = Cut.take(admin, Target.SERVING.inputTopics());
        String parcel = "P-after-cut-" + RUN;
        try (var producer = producer()) {
            var scan = ParcelScanned.newBuilder().setEnvelope(SampleEvents.envelope("after-cut-" + RUN, parcel,
                            GeneratorConfig.DEFAULT_START, ParcelScanned.class))
                    .setParcelId(parcel).setHubId(Hubs.ROTTERDAM).setStatus(ParcelStatus.RECEIVED_AT_HUB).setVehicleId(null)
                    .setLocation(Hubs.ROTTERDAM_POS).setPromisedBy(null).build();
            producer.send(new ProducerRecord<>(Topics.PARCEL_SCANS.name(), parcel,
                    serdes.valueSerde(Topics.PARCEL_SCANS).serializer().serialize(Topics.PARCEL_SCANS.name(), scan))).get();
        }
        String shadow = Target.SERVING.shadowApplicationId("cut-" + RUN);

        ShadowRun.Result result = ShadowRun.run(Target.SERVING, shadow, cut, admin, platform.bootstrapServers(), serdes,
                Files.createDirectories(data.resolve("cut-state")), Duration.ofSeconds(180), Progress.none(),
                io.streamhouse.detection.decision.DecisionTopology.AlertsSeenBy.ALL);

        assertThat(result.dropped()).as("the scan past the cut was read, and dropped").isGreaterThanOrEqualTo(1);
        Map<TopicPartition, Long> committed = Groups.committed(admin, shadow);
        cut.offsets().forEach((tp, end) -> assertThat(committed.get(tp)).as(tp.toString()).isEqualTo(end));
        var reader = new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60));
        var verify = new Verify(reader, serdes, 5);
        Target.Store tracking = Target.SERVING.stores().get(0);
        assertThat(verify.read(tracking, shadow).contents().values()).noneMatch(keys -> keys.containsKey(parcel));
        awaitLiveAt(Target.SERVING, LIVE_SERVING);
        assertThat(verify.read(tracking, LIVE_SERVING).contents().values()).anyMatch(keys -> keys.containsKey(parcel));
    }

    @Test
    @Order(4)
    void aPlantedChangeInLiveStateIsReportedWithBothValues() throws Exception {
        Target.Store tracking = Target.SERVING.stores().get(0);
        String changelog = tracking.changelog(LIVE_SERVING);
        var reader = new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60));
        AtomicReference<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> newest = new AtomicReference<>();
        AtomicLong maxTimestamp = new AtomicLong();
        reader.readAll(changelog, r -> {
            if (r.value() != null && (newest.get() == null || r.timestamp() >= newest.get().timestamp())) {
                newest.set(r);
            }
            maxTimestamp.accumulateAndGet(r.timestamp(), Math::max);
        });
        var original = newest.get();
        String key = new String(original.key(), StandardCharsets.UTF_8);
        var codec = serdes.stateSerde(ParcelTracking.class);
        ParcelTracking planted = codec.deserializer().deserialize(changelog, original.value());
        planted.setStatus("PLANTED");
        try (var producer = producer()) {
            producer.send(new ProducerRecord<>(changelog, original.partition(), maxTimestamp.get() + 1, key,
                    codec.serializer().serialize(changelog, planted))).get();
        }

        Run run = rebuild("serving", PLANTED);

        assertThat(run.exit()).as(run.err() + run.out()).isEqualTo(ReplayCli.DIVERGENT);
        JsonNode summary = run.json();
        assertThat(summary.get("result").asText()).isEqualTo("DIVERGENT");
        JsonNode report = store(target(summary, "serving"), ServingStores.PARCEL_TRACKING);
        assertThat(report.get("divergentKeys").asLong()).isEqualTo(1);
        JsonNode difference = report.get("differences").get(0);
        assertThat(difference.get("key").asText()).isEqualTo(key);
        assertThat(difference.get("live").asText()).contains("\"PLANTED\"");
        assertThat(difference.get("shadow").asText()).contains(key).doesNotContain("PLANTED");
        long unequal = 0;
        for (JsonNode p : report.get("partitions")) {
            if (!p.get("liveDigest").asText().equals(p.get("shadowDigest").asText())) {
                unequal++;
                assertThat(p.get("partition").asInt()).isEqualTo(original.partition());
            }
        }
        assertThat(unequal).isEqualTo(1);
        assertThat(summary.get("divergences").asLong()).isEqualTo(1);
    }

    @Test
    @Order(5)
    void plantedLiveAlertsAreReported() throws Exception {
        var verify = new AlertVerify(new TopicReader(platform.bootstrapServers(), admin, Duration.ofSeconds(60)), serdes, 5);
        var settled = verify.readInput(Cut.take(admin, CepShadow.inputTopics()), Duration.ofSeconds(30));
        io.streamhouse.domain.event.Alert original = verify.alerts(LIVE_CEP_PREFIX).values().stream().map(l -> l.get(0))
                .filter(a -> AlertVerify.settled(a, settled)).findFirst().orElseThrow();
        var extra = io.streamhouse.domain.event.Alert.newBuilder(original).setAlertId("planted-extra-" + RUN)
                .setEnvelope(io.streamhouse.domain.event.Envelope.newBuilder(original.getEnvelope()).setEventId("planted-extra-" + RUN).build())
                .build();
        var altered = io.streamhouse.domain.event.Alert.newBuilder(original).setSummary("PLANTED").build();
        String topic = switch (original.getCategory()) {
            case FRAUD -> Topics.FRAUD_ALERTS.name();
            case PARCEL -> Topics.PARCEL_ALERTS.name();
            case MAINTENANCE -> Topics.MAINTENANCE_ALERTS.name();
        };
        var codec = serdes.valueSerde(Topics.FRAUD_ALERTS).serializer();
        try (var producer = producer()) {
            for (var a : List.of(extra, altered)) {
                producer.send(new ProducerRecord<>(LIVE_CEP_PREFIX + topic, a.getSubject().getId(), codec.serialize(topic, a))).get();
            }
        }

        Run run = rebuild("cep", "alerts-" + RUN);

        assertThat(run.exit()).as(run.err() + run.out()).isEqualTo(ReplayCli.DIVERGENT);
        JsonNode alerts = target(run.json(), "cep").get("alerts");
        assertThat(alerts.get("divergent").asLong()).as(alerts.toString()).isEqualTo(2);
        assertThat(alerts.get("onlyInLive").asLong()).isEqualTo(1);
        assertThat(alerts.get("differing").asLong()).isEqualTo(1);
        assertThat(alerts.get("onlyInShadow").asLong()).isZero();
        List<String> reported = new ArrayList<>();
        // Each reason ends with the occurrence it concerns ("(occurrence pattern|subject|event ids)"): compared without it.
        alerts.get("differences").forEach(d -> reported.add(d.get("key").asText() + ": "
                + d.get("reason").asText().replaceFirst(" \\(occurrence [^)]*\\)$", "")));
        assertThat(reported).containsExactlyInAnyOrder("planted-extra-" + RUN + ": in effect only in live",
                original.getAlertId() + ": alerts with this id: 2 live, 1 shadow");
    }

    @Test
    @Order(6)
    void badInputAndAMissingStackGetTheirExitCodes() throws Exception {
        Run unknown = replay(stack("rebuild", "parcels"));
        assertThat(unknown.exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(unknown.err()).contains("unknown projection 'parcels'");

        Run existing = replay(stack("rebuild", "serving", "--id", FIRST, "--serving-app-id", LIVE_SERVING));
        assertThat(existing.exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(existing.err()).contains("already exists");

        assertThat(replay(stack("rebuild", "serving", "--id", "Not_An_Id")).exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(replay(stack("promote", "nosuch")).exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(replay(stack("discard", "nosuch")).exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(replay("rebuild", "--id", "x").exit()).as("no projection named").isEqualTo(ReplayCli.BAD_INPUT);
        Run diverged = replay(stack("promote", PLANTED));
        assertThat(diverged.exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(diverged.err()).contains("diverged");

        Path empty = Files.createTempDirectory(Path.of("target"), "replay-it-nostack");
        Run noStack = replay("rebuild", "serving", "--data", empty.toString());
        assertThat(noStack.exit()).isEqualTo(ReplayCli.ENVIRONMENT);
        assertThat(noStack.err()).contains("no running stack");
        Run down = replay("rebuild", "serving", "--bootstrap-servers", "127.0.0.1:1", "--registry-url", "http://127.0.0.1:1");
        assertThat(down.exit()).isEqualTo(ReplayCli.ENVIRONMENT);
        assertThat(down.err()).contains("schema registry");
    }

    @Test
    @Order(7)
    void promoteNamesTheShadowForTheApiAndDiscardDeletesAShadow() throws Exception {
        Run promote = replay(stack("promote", FIRST));
        assertThat(promote.exit()).as(promote.err()).isZero();
        assertThat(Files.readString(data.resolve(ReplayCli.SERVING_ID_FILE)).trim()).isEqualTo(Target.SERVING.shadowApplicationId(FIRST));
        assertThat(promote.out()).contains("./streamhouse restart api");
        Run serving = replay(stack("discard", FIRST));
        assertThat(serving.exit()).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(serving.err()).contains("is serving now");

        Run discard = replay(stack("discard", SECOND));
        assertThat(discard.exit()).as(discard.err()).isZero();
        // Deleting topics is asynchronous: the listing drops them a moment after the deletion was accepted.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(Groups.topicsWithPrefix(admin, Target.SERVING.shadowApplicationId(SECOND))).isEmpty();
            assertThat(Groups.topicsWithPrefix(admin, Target.DECISIONS.shadowApplicationId(SECOND))).isEmpty();
            assertThat(Groups.topicsWithPrefix(admin, CepShadow.topicPrefix(CepShadow.groupId(SECOND)))).isEmpty();
        });
        assertThat(Groups.exists(admin, Target.SERVING.shadowApplicationId(SECOND))).isFalse();
        assertThat(Groups.exists(admin, CepShadow.groupId(SECOND))).isFalse();
        assertThat(Files.exists(Records.file(data, SECOND))).isFalse();
    }
}
