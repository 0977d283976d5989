package io.streamhouse.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.decision.DefaultRules;
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
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
import io.streamhouse.projections.serving.ServingStores;
import io.streamhouse.projections.serving.ServingTopology;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The replay CLI against the shared broker, as an SRE would run it: the generator's seeded traffic is decided and
 * projected by "live" applications (the api's topologies, under test application ids) and matched by a live CEP job
 * (CepMain in a child JVM, as ./streamhouse up runs it, writing its alerts under a test prefix so the decisions'
 * fraud-alert table stays as it was), then rebuilt into shadows and compared. In order: a rebuild equals live; a second
 * rebuild equals the first; records past the cut are not applied; a planted change in live state, and planted live
 * alerts, are reported; bad input and a missing stack get their exit codes; a rule changed mid-log is reported; then,
 * with the logs' heads deleted, backfills of serving and decisions from the lake + log equal live, and a backfilled
 * serving shadow, promoted, continues from the live cut.
 */
@WithStreamhousePlatform
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplayIT {
    private static final int EVENTS = 1500;
    private static final String RUN = Long.toString(System.nanoTime() % 1_000_000);
    private static final String LIVE_API = "replay-it-api-" + RUN, LIVE_SERVING = "replay-it-serving-" + RUN;
    private static final String FIRST = "first-" + RUN, SECOND = "second-" + RUN, PLANTED = "planted-" + RUN;
    private static final String LIVE_CEP = "replay-it-cep-" + RUN, LIVE_CEP_PREFIX = LIVE_CEP + ".";
    /** Live runs started for the backfills (test 9): serving, and decisions writing under its own prefix. */
    private static final String LIVE_SERVING_B = "replay-it-serving-b-" + RUN, LIVE_D = "replay-it-api-d-" + RUN;

    /** The live CEP job writes under a prefix, not to the alert topics serving reads: these stores stay empty. */
    private static final java.util.Set<String> ALERT_STORES = java.util.Set.of(ServingStores.SUBJECT_ALERTS, ServingStores.ALERT_FEED);

    private static EmbeddedPlatform platform;
    private static TopicSerdes serdes;
    private static Admin admin;
    private static Path data;
    private static Generation generation;
    private static final List<KafkaStreams> live = new ArrayList<>();
    private static Process liveCep;
    private static java.util.concurrent.CompletableFuture<Void> lake;

    @BeforeAll
    static void liveAppsDecideAndProjectTheGeneratorsTraffic() throws Exception {
        platform = SharedPlatform.get();
        serdes = new RegistryTopicSerdes(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()));
        data = Files.createTempDirectory(Path.of("target"), "replay-it-data").toAbsolutePath();
        try (var producer = producer()) {
            var rules = serdes.valueSerde(Topics.RULES).serializer();
            for (var rule : DefaultRules.definitions()) {
                producer.send(new ProducerRecord<>(Topics.RULES.name(), rule.getRuleId(), rules.serialize(Topics.RULES.name(), rule))).get();
            }
        }
        generation = Generator.generate(GeneratorConfig.defaults(11, EVENTS));
        try (var sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            for (GeneratedEvent e : generation.events()) {
                sink.send(e);
            }
            sink.flush(System.nanoTime() + Duration.ofSeconds(60).toNanos());
        }
        long t0 = System.nanoTime();
        // The three live applications start side by side (the CEP child's JVM and MiniCluster start overlaps the
        // Streams applications' work); each is then awaited as before, serving only once decisions caught up, since
        // serving reads the decisions.
        live.add(start(LIVE_API, DecisionTopology.build(new DecisionTopology.Config(Clock.systemUTC()), serdes)));
        live.add(start(LIVE_SERVING, ServingTopology.build(ServingTopology.Config.defaults(), serdes)));
        Process child = launchLiveCep();
        liveCep = child;
        awaitLiveAt(Target.DECISIONS, LIVE_API);
        awaitLiveAt(Target.SERVING, LIVE_SERVING);
        long streams = System.nanoTime();
        awaitLiveCepReady(child);
        awaitLiveCepAtTheInputsEnds();
        System.out.printf("ReplayIT: live decisions and serving caught up in %d ms, the live CEP job in %d ms%n",
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
        live.forEach(s -> s.close(Duration.ofSeconds(20)));
        if (admin != null) {
            admin.close();
        }
    }

    private static KafkaStreams start(String applicationId, Topology topology) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(data.resolve("live-state")).toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        KafkaStreams streams = new KafkaStreams(topology, props);
        streams.start();
        return streams;
    }

    private static void awaitLiveAt(Target target, String applicationId) throws Exception {
        // What the group commits: the decision app's profiles global store reads shop.customers without group offsets.
        Cut cut = target.committedPart(Cut.take(admin, target.inputTopics()), io.streamhouse.plumbing.OutputTopics.LIVE);
        assertThat(Groups.awaitCaughtUp(admin, applicationId, cut, target.repartitionTopics(applicationId), Duration.ofSeconds(120),
                left -> { }, () -> false)).as("%s caught up with its inputs", applicationId).isTrue();
    }

    private static KafkaProducer<String, byte[]> producer() {
        return new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
    }

    /** The CLI as {@code ./streamhouse replay} runs it, against the test's live application ids. */
    private record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return Records.JSON.readTree(out);
        }
    }

    private static Run replay(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int exit = ReplayCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Run rebuild(String what, String id) {
        return replay("rebuild", what, "--id", id, "--json", "--data", data.toString(),
                "--bootstrap-servers", platform.bootstrapServers(), "--registry-url", platform.schemaRegistryUrl().toString(),
                "--serving-app-id", LIVE_SERVING, "--decisions-app-id", LIVE_API, "--cep-group-id", LIVE_CEP,
                "--cep-output-prefix", LIVE_CEP_PREFIX, "--timeout", "180", "--live-timeout", "120");
    }

    private static String[] stack(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--data", data.toString(), "--bootstrap-servers", platform.bootstrapServers(),
                "--registry-url", platform.schemaRegistryUrl().toString()));
        return all.toArray(String[]::new);
    }

    private static JsonNode target(JsonNode summary, String target) {
        for (JsonNode t : summary.get("targets")) {
            if (t.get("target").asText().equals(target)) {
                return t;
            }
        }
        throw new AssertionError("no " + target + " in " + summary);
    }

    private static JsonNode store(JsonNode target, String store) {
        for (JsonNode s : target.get("stores")) {
            if (s.get("store").asText().equals(store)) {
                return s;
            }
        }
        throw new AssertionError("no " + store + " in " + target);
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
        startTheLake();
    }

    /**
     * The lake the backfills (tests 9 to 11) read: its Connect worker starts, and its sink lands the log, while the
     * lighter tests 3 to 8 run (nothing there reads or writes what it does); test 9 starts it if this did not run.
     */
    private static void startTheLake() {
        lake = java.util.concurrent.CompletableFuture.runAsync(platform::lake);
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

    /**
     * The finding written down in docs/replay.md ("Determinism of decisions"): a rule changed mid-log makes a
     * rebuild differ from live for every decision before the change, since the rebuild's rules global table starts at
     * the latest rules. Replay reports each of them, with the rule set versions as the reason.
     */
    @Test
    @Order(8)
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
    @Order(9)
    void backfillStitchesTheLakeToTheLogExactlyAndEqualsLive() throws Exception {
        if (lake == null) {
            startTheLake();
        }
        lake.get(3, java.util.concurrent.TimeUnit.MINUTES);
        platform.lake();
        String liveB = LIVE_SERVING_B;
        live.add(start(liveB, ServingTopology.build(ServingTopology.Config.defaults(), serdes)));
        awaitLiveAt(Target.SERVING, liveB);
        // For the decisions backfill (test 11): a live decision application over the whole log, started after the rule
        // change of test 8 (so it decides everything under the rules a shadow reads) and before any head is deleted.
        ShadowRun.createOutputs(admin, Target.DECISIONS, LIVE_D);
        live.add(start(LIVE_D, DecisionTopology.build(new DecisionTopology.Config(Clock.systemUTC(), Target.shadowOutputs(LIVE_D)), serdes)));
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
    @Order(10)
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
        live.add(start(app, ServingTopology.build(ServingTopology.Config.defaults(), serdes)));
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
     * decisions, whose log's head test 9 deleted, live's decisions are read from the lake there: every one is found, and
     * exactly those decided before test 8's rule change differ, by their rule set.
     */
    @Test
    @Order(11)
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
