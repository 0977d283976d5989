package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.PlatformOptions;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static io.streamhouse.detection.cep.CepEvents.payment;

/**
 * Benchmark, not a test: {@code CepBenchmark [events] [latencySamples] [checkpointIntervals]} starts a platform
 * (broker + registry), writes the generator's events to the catalog topics, then, in the same run and on one core
 * (parallelism 1):
 * <ol>
 *   <li>throughput, per round ({@code -Dcep.bench.rounds}, default 2): a pass-through job (the same Kafka sources and
 *       decoding, into a discarding sink), the CEP job as it runs by default (every pattern on Flink's CEP library,
 *       late events reconciled, state on the heap; no checkpoints, discarding sinks) and the keyed floor with one timer
 *       per event on the same (hashmap) backend, each reading all the topics to their end; events/s and the CEP job's
 *       share of the floor (issue #21 item 7). Each job is timed two ways: its whole {@code env.execute} (MiniCluster
 *       start, submission, deployment, source start-up, teardown: a fixed cost of one to two seconds) and its
 *       processing window ({@link ProcessingWindow}: first record decoded to the last end of input at a sink), the
 *       steady-state rate a long-running job has. Then the CEP job once more per checkpoint interval as it runs in
 *       production: exactly-once checkpoints at that interval, Kafka transactional sinks — what the interval costs;</li>
 *   <li>one-event latency, per checkpoint interval: the CEP job as {@link CepMain} wires it (exactly-once sinks,
 *       checkpoints at that interval), started at the end of the log; one card test at a time, the time from sending
 *       the payment that completes it until its alert is read by a {@code read_committed} consumer of
 *       {@code alerts.fraud}, and until a {@code read_uncommitted} one reads it (when the sink wrote it). An
 *       exactly-once alert is visible only once the checkpoint after it commits, so the interval bounds the latency.
 *       The completing payment is sent after a random pause within one interval ({@code -Dcep.bench.dephase=false}
 *       sends it at once, right after the previous sample's commit: always just after a barrier).</li>
 * </ol>
 * Options, each adding runs per round: {@code -Dcep.bench.rocksdb=true} the CEP job on RocksDB
 * ({@code --state-backend rocksdb}; slow: a few hundred events/s) and the keyed floors on RocksDB (without a timer,
 * with a RocksDB timer per event and, unless {@code -Dcep.bench.heapTimers=false}, with heap timers);
 * {@code -Dcep.bench.reconcileCost=true} the CEP job without its late-event reconciliation (what it costs).
 * {@code -Dcep.bench.libraryOnly=true} runs only the pass-through and the CEP job per round (for a profile).
 * RocksDB's local directory and Flink's {@code io.tmp.dirs} are a short directory under {@code /tmp}
 * ({@code -Dcep.bench.shortDirs=false} keeps Flink's defaults under {@code java.io.tmpdir}).
 * {@code checkpointIntervals} {@code none} skips the checkpointed runs and the latency phase.
 * {@code -Dcep.bench.checkpointedConf=key=value,...} overrides Flink settings of the checkpointed runs only (the
 * exactly-once throughput and latency runs), e.g. {@code state.backend.type=rocksdb}. The classpath must not have
 * Kafka Streams' rocksdbjni ahead of Flink's frocksdbjni (every RocksDB checkpoint fails then): the benchmark checks
 * that first ({@link RocksDbLibrary}). Command in docs/benchmarks.md.
 */
public final class CepBenchmark {

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int samples = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        String intervalList = args.length > 2 ? args[2] : "PT1S,PT0.1S,PT0.05S";
        List<Duration> intervals = intervalList.equals("none") ? List.of() // throughput without checkpoints only
                : Arrays.stream(intervalList.split(",")).map(Duration::parse).toList();
        RocksDbLibrary.requireFrocksdb();
        boolean libraryOnly = Boolean.getBoolean("cep.bench.libraryOnly");
        boolean rocksDb = !libraryOnly && Boolean.getBoolean("cep.bench.rocksdb");
        boolean reconcileCost = !libraryOnly && Boolean.getBoolean("cep.bench.reconcileCost");
        try (EmbeddedPlatform platform = EmbeddedPlatform.start(PlatformOptions.forTests())) {
            Generation g = Generator.generate(GeneratorConfig.defaults(42, events));
            new KafkaTestIo(platform).send(g.events());
            System.out.printf(Locale.ROOT, "wrote %d events%n", events);
            double bestPass = 0, bestPassWindow = 0, bestCep = 0, bestCepWindow = 0, bestFloor = 0, bestFloorWindow = 0;
            int rounds = Integer.getInteger("cep.bench.rounds", 2);
            for (int round = 1; round <= rounds; round++) {
                Timing pass = throughputRun(platform, Mode.PASS_THROUGH, null);
                Timing cep = throughputRun(platform, Mode.CEP, null);
                System.out.printf(Locale.ROOT, "round %d, CEP job (the library, state on the heap), whole / processing "
                                + "window: %.0f / %.0f events/s; pass-through %.0f / %.0f events/s%n", round,
                        events / cep.wall(), events / cep.window(), events / pass.wall(), events / pass.window());
                bestPass = Math.max(bestPass, events / pass.wall());
                bestPassWindow = Math.max(bestPassWindow, events / pass.window());
                bestCep = Math.max(bestCep, events / cep.wall());
                bestCepWindow = Math.max(bestCepWindow, events / cep.window());
                if (libraryOnly) {
                    continue;
                }
                Timing floor = throughputRun(platform, Mode.FLOOR_KEYED_TIMER_HASHMAP, null);
                System.out.printf(Locale.ROOT, "round %d, keyed floor with a timer per event on the hashmap backend: "
                                + "%.0f / %.0f events/s; the CEP job = %.1f %% / %.1f %% of it (whole / processing window)%n",
                        round, events / floor.wall(), events / floor.window(), 100 * floor.wall() / cep.wall(),
                        100 * floor.window() / cep.window());
                bestFloor = Math.max(bestFloor, events / floor.wall());
                bestFloorWindow = Math.max(bestFloorWindow, events / floor.window());
                if (reconcileCost) {
                    Timing unreconciled = throughputRun(platform, Mode.CEP_UNRECONCILED, null);
                    System.out.printf(Locale.ROOT, "round %d, the CEP job without its late-event reconciliation: %.0f / "
                                    + "%.0f events/s: the reconciliation takes %.0f %% / %.0f %% of the job's time%n", round,
                            events / unreconciled.wall(), events / unreconciled.window(),
                            100 * (cep.wall() - unreconciled.wall()) / cep.wall(),
                            100 * (cep.window() - unreconciled.window()) / cep.window());
                }
                if (rocksDb) {
                    Timing cepRocks = throughputRun(platform, Mode.CEP_ROCKSDB, null);
                    Timing floorRocks = throughputRun(platform, Mode.FLOOR_KEYED, null);
                    Timing floorRocksTimer = throughputRun(platform, Mode.FLOOR_KEYED_TIMER, null);
                    Timing floorRocksHeapTimer = Boolean.parseBoolean(System.getProperty("cep.bench.heapTimers", "true"))
                            ? throughputRun(platform, Mode.FLOOR_KEYED_TIMER_HEAP, null) : new Timing(Double.NaN, Double.NaN);
                    System.out.printf(Locale.ROOT, "round %d, on RocksDB (whole / processing window): the CEP job %.0f / "
                                    + "%.0f events/s = %.1f %% / %.1f %% of the RocksDB floor with a timer per event (%.0f / "
                                    + "%.0f events/s); floor without timers %.0f / %.0f, with heap timers %.0f / %.0f%n",
                            round, events / cepRocks.wall(), events / cepRocks.window(),
                            100 * floorRocksTimer.wall() / cepRocks.wall(), 100 * floorRocksTimer.window() / cepRocks.window(),
                            events / floorRocksTimer.wall(), events / floorRocksTimer.window(), events / floorRocks.wall(),
                            events / floorRocks.window(), events / floorRocksHeapTimer.wall(),
                            events / floorRocksHeapTimer.window());
                }
            }
            System.out.printf(Locale.ROOT, "THROUGHPUT (parallelism 1, best of %d, whole / processing window): "
                            + "pass-through %.0f / %.0f events/s, CEP job %.0f / %.0f events/s%n", rounds, bestPass,
                    bestPassWindow, bestCep, bestCepWindow);
            if (!libraryOnly) {
                System.out.printf(Locale.ROOT, "THROUGHPUT the CEP job against the keyed floor with a timer per event "
                                + "on the same backend (best of each, whole / processing window): %.1f %% / %.1f %%%n",
                        100 * bestCep / bestFloor, 100 * bestCepWindow / bestFloorWindow);
            }
            for (Duration interval : intervals) {
                double eo = events / throughputRun(platform, Mode.CEP_EXACTLY_ONCE, interval).wall();
                System.out.printf(Locale.ROOT, "THROUGHPUT CEP exactly-once, checkpoints every %d ms, Kafka sinks: %.0f "
                        + "events/s = %.0f %% of pass-through%n", interval.toMillis(), eo, 100 * eo / bestPass);
            }
            for (Duration interval : intervals) {
                latency(platform, samples, interval);
            }
        }
    }

    private enum Mode {
        PASS_THROUGH,
        /** The CEP job as it runs by default: the library, state on the heap. */
        CEP,
        /** The same without the late-event reconciliation ({@code -Dcep.bench.reconcileCost=true}): what it costs. */
        CEP_UNRECONCILED,
        /** The CEP job on RocksDB ({@code -Dcep.bench.rocksdb=true}). */
        CEP_ROCKSDB,
        CEP_EXACTLY_ONCE,
        /** Decode, key by subject, one ValueState read and write, on RocksDB ({@code -Dcep.bench.rocksdb=true}). */
        FLOOR_KEYED,
        /** The same and an event-time timer per event, RocksDB timers. */
        FLOOR_KEYED_TIMER,
        /** The same with the timers on the heap. */
        FLOOR_KEYED_TIMER_HEAP,
        /** {@link #FLOOR_KEYED_TIMER} on the hashmap state backend: the baseline of {@link #CEP}. */
        FLOOR_KEYED_TIMER_HASHMAP
    }

    /**
     * One job's seconds: {@code wall}, the whole {@code env.execute} (MiniCluster start, submission, deployment,
     * source start-up, processing, teardown), as every figure before run 34; {@code window}, only the processing
     * ({@link ProcessingWindow}; NaN for the exactly-once runs, whose sinks are Kafka's).
     */
    private record Timing(double wall, double window) {
    }

    private static Timing throughputRun(EmbeddedPlatform platform, Mode mode, Duration interval) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        String group = "bench-" + UUID.randomUUID();
        Path checkpoints = null;
        if (mode == Mode.CEP_EXACTLY_ONCE) {
            checkpoints = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "bench-chk-");
            conf = CepMain.configuration(CepOptions.parse(new String[]{"--checkpoint-dir", checkpoints.toString()}, Map.of()));
        }
        if (mode == Mode.FLOOR_KEYED_TIMER_HEAP) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBOptions.TIMER_SERVICE_FACTORY,
                    org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend.PriorityQueueStateType.HEAP);
        }
        if (mode == Mode.CEP || mode == Mode.CEP_UNRECONCILED || mode == Mode.FLOOR_KEYED_TIMER_HASHMAP) {
            conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        }
        Path local = shortDirs(conf, mode == Mode.CEP_EXACTLY_ONCE);
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
            RegistryClientFactory registry = RegistryClientFactory.url(platform.schemaRegistryUrl().toString());
            CepSources bounded = bounded(platform.bootstrapServers(), group, registry);
            switch (mode) {
                case PASS_THROUGH -> {
                    // As the CEP job (CepJob.build): chained operators pass records on without copying them.
                    env.getConfig().enableObjectReuse();
                    for (EventKind kind : EventKind.values()) {
                        passThroughRaw(env, bounded, kind.topic());
                    }
                }
                case FLOOR_KEYED, FLOOR_KEYED_TIMER, FLOOR_KEYED_TIMER_HEAP, FLOOR_KEYED_TIMER_HASHMAP -> {
                    env.getConfig().enableObjectReuse(); // as the pass-through and the CEP job
                    for (EventKind kind : EventKind.values()) {
                        keyedFloorRaw(env, bounded, kind.topic(), mode != Mode.FLOOR_KEYED);
                    }
                }
                case CEP, CEP_ROCKSDB -> CepJob.build(env, bounded, new CepSinks(ProcessingWindow.discarding(),
                        ProcessingWindow.discarding(), ProcessingWindow.discarding()), CepJobConfig.defaults().forInMemorySources(), registry);
                case CEP_UNRECONCILED -> CepJob.build(env, bounded,
                        new CepSinks(ProcessingWindow.discarding(), ProcessingWindow.discarding(),
                                ProcessingWindow.discarding()),
                        CepJobConfig.defaults().forInMemorySources().withoutLateReconciliation(), registry);
                case CEP_EXACTLY_ONCE -> {
                    env.setBufferTimeout(0);
                    env.enableCheckpointing(interval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
                    CepJob.build(env, bounded, KafkaCepIo.sinks(platform.bootstrapServers(), group, registry,
                            DeliveryGuarantee.EXACTLY_ONCE), CepJobConfig.defaults().forInMemorySources(), registry);
                }
            }
            ProcessingWindow.reset();
            long start = System.nanoTime();
            env.execute("bench-" + mode.name().toLowerCase(Locale.ROOT));
            return new Timing((System.nanoTime() - start) / 1e9, ProcessingWindow.seconds());
        } finally {
            delete(local);
            delete(checkpoints);
        }
    }

    /**
     * Flink's and RocksDB's local working directories in a short directory under /tmp, unless
     * {@code -Dcep.bench.shortDirs=false}: under a MiniCluster the RocksDB instance path otherwise nests job, operator
     * and UUID components under {@code java.io.tmpdir}.
     */
    private static Path shortDirs(Configuration conf, boolean checkpointed) throws java.io.IOException {
        String extra = checkpointed ? System.getProperty("cep.bench.checkpointedConf", "") : "";
        if (!extra.isBlank()) { // e.g. -Dcep.bench.checkpointedConf=state.backend.type=hashmap
            Map<String, String> settings = new HashMap<>();
            for (String kv : extra.split(",")) {
                settings.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
            conf.addAll(Configuration.fromMap(settings));
        }
        if (!Boolean.parseBoolean(System.getProperty("cep.bench.shortDirs", "true"))) {
            return null;
        }
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "shb");
        conf.set(CoreOptions.TMP_DIRS, dir.toString());
        conf.set(org.apache.flink.state.rocksdb.RocksDBOptions.LOCAL_DIRECTORIES, dir.toString());
        return dir;
    }

    /** Best effort: Flink removes some of its directories itself, concurrently. */
    private static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            System.out.println("could not delete all of " + dir + ": " + e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void passThroughRaw(StreamExecutionEnvironment env, CepSources sources, Topic<String, ?> topic) {
        passThrough(env, sources, (Topic) topic);
    }

    private static <T extends SpecificRecord> void passThrough(StreamExecutionEnvironment env, CepSources sources,
                                                               Topic<String, T> topic) {
        env.fromSource(sources.of(topic), WatermarkStrategy.noWatermarks(), topic.name(),
                        WireDeserializationSchema.typeOf(topic.valueType()))
                .sinkTo(ProcessingWindow.discarding());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void keyedFloorRaw(StreamExecutionEnvironment env, CepSources sources, Topic<String, ?> topic,
                                      boolean timers) {
        keyedFloor(env, sources, (Topic) topic, timers);
    }

    /**
     * One topic of the keyed floor: the pass-through's source and decoding, with the CEP job's watermarks (so that the
     * event-time timers fire, at the latest at the end of input), the subject alone across the keyed exchange (the CEP
     * job sends a subject and a fact), {@link CountPerSubject}, the discarding sink. One keyed operator per topic, so
     * each event touches state once; in the CEP job a payment or a reading feeds two patterns.
     */
    private static <T extends SpecificRecord> void keyedFloor(StreamExecutionEnvironment env, CepSources sources,
                                                              Topic<String, T> topic, boolean timers) {
        String name = topic.name();
        env.fromSource(sources.of(topic), EventTimeWatermarks.<T>forEvents(CepJobConfig.defaults().forInMemorySources(), name), name,
                        WireDeserializationSchema.typeOf(topic.valueType()))
                .uid("floor-source-" + name).name(name)
                .flatMap(new SubjectOf<T>(), Types.STRING).uid("floor-subject-" + name).name("subject " + name)
                .keyBy(subject -> subject, Types.STRING)
                .process(new CountPerSubject(timers), Types.LONG).uid("floor-count-" + name).name("count " + name)
                .sinkTo(ProcessingWindow.discarding()).uid("floor-sink-" + name).name("discard " + name);
    }

    /**
     * The key the CEP job keys the event's topic by, taken from the job's own patterns ({@link SubjectPattern#subject}):
     * the card token for payments, the customer for customer changes and orders, the parcel for scans, the vehicle
     * for telemetry. Dead letters stop here.
     */
    private static final class SubjectOf<T extends SpecificRecord> implements FlatMapFunction<Either<DeadLetter, T>, String> {
        private static final CardTestingPattern CARDS = new CardTestingPattern();
        private static final AccountTakeoverPattern CUSTOMERS = new AccountTakeoverPattern();
        private static final ParcelSlaPattern PARCELS = new ParcelSlaPattern();
        private static final OverheatingPattern VEHICLES = new OverheatingPattern();

        @Override
        public void flatMap(Either<DeadLetter, T> in, Collector<String> out) {
            if (in.isLeft()) {
                return;
            }
            T event = in.right();
            if (event instanceof TransactionAuthorizationRequested tx) {
                out.collect(CARDS.subject(tx));
            } else if (event instanceof CustomerEvent c) {
                out.collect(CUSTOMERS.subject(Either.Left(c)));
            } else if (event instanceof OrderEvent o) {
                out.collect(CUSTOMERS.subject(Either.Right(o)));
            } else if (event instanceof ParcelScanned scan) {
                out.collect(PARCELS.subject(scan));
            } else if (event instanceof VehicleTelemetry r) {
                out.collect(VEHICLES.subject(r));
            } else {
                throw new IllegalArgumentException("no subject for " + event.getClass().getName());
            }
        }
    }

    /**
     * The least a keyed stateful operator does: per event, one {@code ValueState<Long>} read and write (a count per
     * subject) and, with {@code timers}, an event-time timer at the event's time rounded up to the whole second (so a
     * subject's timers within a second coalesce into one); the timer does nothing. Emits nothing: the sink only marks
     * the end of input.
     */
    private static final class CountPerSubject extends KeyedProcessFunction<String, String, Long> {
        private final boolean timers;
        private transient ValueState<Long> count;

        CountPerSubject(boolean timers) {
            this.timers = timers;
        }

        @Override
        public void open(OpenContext openContext) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(String subject, Context ctx, Collector<Long> out) throws Exception {
            Long n = count.value();
            count.update(n == null ? 1L : n + 1);
            if (timers) {
                long at = ctx.timestamp(); // the envelope's occurredAt, from the CEP job's timestamp assigner
                ctx.timerService().registerEventTimeTimer(-Math.floorDiv(-at, 1000L) * 1000L);
            }
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out) {
        }
    }

    private static CepSources bounded(String bootstrap, String group, RegistryClientFactory registry) {
        return new CepSources() {
            @Override
            public <T extends SpecificRecord> Source<Either<DeadLetter, T>, ?, ?> of(Topic<String, T> topic) {
                return KafkaSource.<Either<DeadLetter, T>>builder().setBootstrapServers(bootstrap).setTopics(topic.name())
                        .setGroupId(group).setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest())
                        .setDeserializer(ProcessingWindow.marking(new WireDeserializationSchema<>(topic, registry))).build();
            }
        };
    }

    private static void latency(EmbeddedPlatform platform, int samples, Duration interval) throws Exception {
        boolean dephase = Boolean.parseBoolean(System.getProperty("cep.bench.dephase", "true"));
        String group = "bench-latency-" + UUID.randomUUID();
        startAtTheEnd(platform, group);
        Path checkpoints = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "bench-");
        CepOptions options = CepOptions.parse(new String[]{"--bootstrap", platform.bootstrapServers(),
                "--registry", platform.schemaRegistryUrl().toString(), "--group-id", group, "--parallelism", "1",
                "--checkpoint-dir", checkpoints.toString(), "--checkpoint-interval", interval.toString(),
                "--delivery", "exactly-once", "--max-out-of-orderness", "PT0S", "--idleness", "PT1S",
                "--buffer-timeout-ms", "0", "--local"}, Map.of());
        Configuration conf = CepMain.configuration(options);
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(5));
        Path local = shortDirs(conf, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        CepMain.wire(env, options);
        JobClient job = env.executeAsync("bench-latency");
        var client = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        var serializer = new AvroSerializer<>(client, TransactionAuthorizationRequested.class, false);
        var alerts = new AvroDeserializer<>(client, Alert.class, false);
        List<Long> committedMicros = new ArrayList<>();
        List<Long> uncommittedMicros = new ArrayList<>();
        String topic = Topics.TRANSACTION_REQUESTS.name();
        try (var producer = new KafkaProducer<byte[], byte[]>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 0), new ByteArraySerializer(), new ByteArraySerializer());
             var committed = alertsConsumer(platform, "read_committed");
             var uncommitted = alertsConsumer(platform, "read_uncommitted")) {
            // in the past: brokers refuse record timestamps more than message.timestamp.after.max.ms (1 h) ahead, and
            // alerts carry the event time
            Instant t = Instant.parse("2026-01-01T00:00:00Z");
            String card = "tok_bench_latency_" + interval.toMillis();
            java.util.Random phase = new java.util.Random(42);
            for (int i = 0; i < samples + 20; i++) {
                t = t.plus(Duration.ofHours(1));
                for (int s = 0; s < 3; s++) {
                    send(producer, serializer, topic, payment("b" + interval.toMillis() + "-" + i + "s" + s, card, "1.00",
                            t.plusSeconds(s)));
                }
                producer.flush();
                if (dephase) {
                    // Each sample starts right after the previous alert's checkpoint committed, so without this pause
                    // every completing payment would arrive at the same point of the checkpoint cycle, just after a
                    // barrier, and wait a whole interval: traffic arrives at random points of the cycle.
                    java.util.concurrent.locks.LockSupport.parkNanos((long) (phase.nextDouble() * interval.toNanos()));
                }
                String largeId = "b" + interval.toMillis() + "-" + i + "L";
                long sent = System.nanoTime();
                send(producer, serializer, topic, payment(largeId, card, "900.00", t.plusSeconds(10)));
                // the next event on the card's partition moves the watermark past the large payment
                send(producer, serializer, topic, payment("b" + interval.toMillis() + "-" + i + "n", card, "10.00",
                        t.plusSeconds(11)));
                producer.flush();
                long until = System.nanoTime() + Duration.ofSeconds(i < 20 ? 120 : 20).toNanos(); // warm-up: job start
                long seenCommitted = 0;
                long seenUncommitted = 0;
                while (seenCommitted == 0 && System.nanoTime() < until) {
                    if (seenUncommitted == 0 && contains(uncommitted, alerts, "evt-" + largeId)) {
                        seenUncommitted = System.nanoTime();
                    }
                    if (contains(committed, alerts, "evt-" + largeId)) {
                        seenCommitted = System.nanoTime();
                    }
                }
                if (seenCommitted == 0) {
                    throw new IllegalStateException("no committed alert for sample " + i + " within the deadline; a "
                            + "read_uncommitted consumer " + (seenUncommitted == 0 ? "did not see it either"
                            : "saw it " + (seenUncommitted - sent) / 1_000_000 + " ms after the send"));
                }
                if (seenUncommitted == 0) { // both in the same poll round, or committed first: take the committed time
                    seenUncommitted = seenCommitted;
                }
                if (i >= 20) { // the first 20 warm up
                    committedMicros.add((seenCommitted - sent) / 1_000);
                    uncommittedMicros.add((seenUncommitted - sent) / 1_000);
                }
            }
        } finally {
            job.cancel().get();
            delete(local);
            delete(checkpoints);
        }
        String arrivals = dephase ? ", completing payments at random points of the checkpoint cycle"
                : ", each sample right after the previous one's commit";
        report("read_committed (exactly-once: after the checkpoint commits)" + arrivals, interval, committedMicros);
        report("read_uncommitted (when the sink wrote it)" + arrivals, interval, uncommittedMicros);
    }

    private static void report(String what, Duration interval, List<Long> micros) {
        micros.sort(Long::compare);
        System.out.printf(Locale.ROOT, "LATENCY one event, exactly-once job, checkpoints every %d ms: send of the "
                        + "completing payment -> alert read by a %s, %d samples: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                interval.toMillis(), what, micros.size(), micros.get(micros.size() / 2) / 1000.0,
                micros.get((int) Math.ceil(micros.size() * 0.99) - 1) / 1000.0, micros.get(micros.size() - 1) / 1000.0);
    }

    /** A consumer of alerts.fraud from its current end. */
    private static KafkaConsumer<byte[], byte[]> alertsConsumer(EmbeddedPlatform platform, String isolation) {
        var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers(), ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> parts = consumer.partitionsFor(Topics.FRAUD_ALERTS.name()).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(parts);
        consumer.seekToEnd(parts);
        parts.forEach(consumer::position);
        return consumer;
    }

    /** One short poll: whether it returned an alert that matched the event. */
    private static boolean contains(KafkaConsumer<byte[], byte[]> consumer, AvroDeserializer<Alert> alerts, String eventId) {
        boolean found = false;
        for (var r : consumer.poll(Duration.ofMillis(1))) {
            if (alerts.deserialize(r.topic(), r.value()).getMatchedEventIds().contains(eventId)) {
                found = true;
            }
        }
        return found;
    }

    /** Commits the group's offsets at the end of every event topic, so the job starts without a backlog. */
    private static void startAtTheEnd(EmbeddedPlatform platform, String group) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (EventKind kind : EventKind.values()) {
                for (int p = 0; p < kind.topic().partitions(); p++) {
                    latest.put(new TopicPartition(kind.topic().name(), p), OffsetSpec.latest());
                }
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            admin.listOffsets(latest).all().get()
                    .forEach((tp, info) -> offsets.put(tp, new OffsetAndMetadata(info.offset())));
            admin.alterConsumerGroupOffsets(group, offsets).all().get();
        }
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, AvroSerializer<TransactionAuthorizationRequested> s,
                             String topic, TransactionAuthorizationRequested tx) {
        Envelope e = tx.getEnvelope();
        producer.send(new ProducerRecord<>(topic, e.getKey().getBytes(StandardCharsets.UTF_8), s.serialize(topic, tx)));
    }

    private CepBenchmark() {
    }
}
