package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
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
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.types.Either;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static io.streamhouse.detection.cep.CepEvents.payment;

/**
 * Benchmark, not a test: {@code CepBenchmark [events] [latencySamples]} starts a platform (broker + registry), writes
 * the generator's events to the catalog topics, then, in the same run and on one core (parallelism 1):
 * <ol>
 *   <li>throughput: a pass-through job (the same Kafka sources and decoding, into a discarding sink) and the CEP job
 *       (RocksDB state) each read all the topics to their end, twice, alternating; events/s of the best run of each;</li>
 *   <li>one-event latency: the CEP job running (at-least-once sinks, no transaction wait), one card test at a time:
 *       the payment that completes it is sent, and the time until its alert is read from {@code alerts.fraud}.</li>
 * </ol>
 * Command in docs/benchmarks.md.
 */
public final class CepBenchmark {

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int samples = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        try (EmbeddedPlatform platform = EmbeddedPlatform.start(PlatformOptions.forTests())) {
            Generation g = Generator.generate(GeneratorConfig.defaults(42, events));
            new KafkaTestIo(platform).send(g.events());
            System.out.printf(Locale.ROOT, "wrote %d events%n", events);
            double bestPass = 0, bestCep = 0;
            for (int round = 0; round < 2; round++) {
                double pass = events / throughputRun(platform, false);
                double cep = events / throughputRun(platform, true);
                System.out.printf(Locale.ROOT, "round %d: pass-through %.0f events/s, CEP %.0f events/s (%.0f %%)%n",
                        round + 1, pass, cep, 100 * cep / pass);
                bestPass = Math.max(bestPass, pass);
                bestCep = Math.max(bestCep, cep);
            }
            System.out.printf(Locale.ROOT, "THROUGHPUT (parallelism 1, best of 2): pass-through %.0f events/s, CEP %.0f "
                    + "events/s = %.0f %% of pass-through%n", bestPass, bestCep, 100 * bestCep / bestPass);
            latency(platform, samples);
        }
    }

    private static double throughputRun(EmbeddedPlatform platform, boolean cep) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        RegistryClientFactory registry = RegistryClientFactory.url(platform.schemaRegistryUrl().toString());
        CepSources bounded = bounded(platform.bootstrapServers(), "bench-" + UUID.randomUUID(), registry);
        if (cep) {
            CepJob.build(env, bounded, new CepSinks(new DiscardingSink<>(), new DiscardingSink<>(), new DiscardingSink<>()),
                    CepJobConfig.defaults(), registry);
        } else {
            for (EventKind kind : EventKind.values()) {
                passThroughRaw(env, bounded, kind.topic());
            }
        }
        long start = System.nanoTime();
        env.execute(cep ? "bench-cep" : "bench-pass-through");
        return (System.nanoTime() - start) / 1e9;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void passThroughRaw(StreamExecutionEnvironment env, CepSources sources, Topic<String, ?> topic) {
        passThrough(env, sources, (Topic) topic);
    }

    private static <T extends SpecificRecord> void passThrough(StreamExecutionEnvironment env, CepSources sources,
                                                               Topic<String, T> topic) {
        env.fromSource(sources.of(topic), WatermarkStrategy.noWatermarks(), topic.name(),
                        WireDeserializationSchema.typeOf(topic.valueType()))
                .sinkTo(new DiscardingSink<>());
    }

    private static CepSources bounded(String bootstrap, String group, RegistryClientFactory registry) {
        return new CepSources() {
            @Override
            public <T extends SpecificRecord> Source<Either<DeadLetter, T>, ?, ?> of(Topic<String, T> topic) {
                return KafkaSource.<Either<DeadLetter, T>>builder().setBootstrapServers(bootstrap).setTopics(topic.name())
                        .setGroupId(group).setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest())
                        .setDeserializer(new WireDeserializationSchema<>(topic, registry)).build();
            }
        };
    }

    private static void latency(EmbeddedPlatform platform, int samples) throws Exception {
        String group = "bench-latency-" + UUID.randomUUID();
        java.nio.file.Path checkpoints = java.nio.file.Files.createTempDirectory(java.nio.file.Path.of("target"), "bench-");
        CepOptions options = CepOptions.parse(new String[]{"--bootstrap", platform.bootstrapServers(),
                "--registry", platform.schemaRegistryUrl().toString(), "--group-id", group, "--parallelism", "1",
                "--checkpoint-dir", checkpoints.toString(), "--delivery", "at-least-once",
                "--max-out-of-orderness", "PT0S", "--idleness", "PT1S", "--buffer-timeout-ms", "0", "--local"}, Map.of());
        Configuration conf = CepMain.configuration(options);
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(5));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        CepMain.wire(env, options);
        JobClient job = env.executeAsync("bench-latency");
        var client = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        var serializer = new AvroSerializer<>(client, TransactionAuthorizationRequested.class, false);
        var alerts = new AvroDeserializer<>(client, Alert.class, false);
        List<Long> micros = new ArrayList<>();
        String topic = Topics.TRANSACTION_REQUESTS.name();
        try (var producer = new KafkaProducer<byte[], byte[]>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 0), new ByteArraySerializer(), new ByteArraySerializer());
             var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                     platform.bootstrapServers()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(Topics.FRAUD_ALERTS.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToEnd(parts);
            parts.forEach(consumer::position);
            Instant t = Instant.parse("2027-01-01T00:00:00Z");
            String card = "tok_bench_latency";
            for (int i = 0; i < samples + 20; i++) {
                t = t.plus(Duration.ofHours(1));
                for (int s = 0; s < 3; s++) {
                    send(producer, serializer, topic, payment("b" + i + "s" + s, card, "1.00", t.plusSeconds(s)));
                }
                producer.flush();
                String largeId = "b" + i + "L";
                long sent = System.nanoTime();
                send(producer, serializer, topic, payment(largeId, card, "900.00", t.plusSeconds(10)));
                // the next event on the card's partition moves the watermark past the large payment
                send(producer, serializer, topic, payment("b" + i + "n", card, "10.00", t.plusSeconds(11)));
                producer.flush();
                long until = System.nanoTime() + Duration.ofSeconds(i < 20 ? 180 : 20).toNanos(); // warm-up waits for the backlog
                boolean seen = false;
                while (!seen && System.nanoTime() < until) {
                    for (var r : consumer.poll(Duration.ofMillis(1))) {
                        Alert a = alerts.deserialize(r.topic(), r.value());
                        if (a.getMatchedEventIds().contains("evt-" + largeId)) {
                            seen = true;
                        }
                    }
                }
                if (!seen) {
                    throw new IllegalStateException("no alert for sample " + i + " in time");
                }
                if (i >= 20) { // the first 20 warm up
                    micros.add((System.nanoTime() - sent) / 1_000);
                }
            }
        } finally {
            job.cancel().get();
        }
        micros.sort(Long::compare);
        System.out.printf(Locale.ROOT, "LATENCY one event (send of the completing payment -> alert read), %d samples: "
                        + "p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", micros.size(), micros.get(micros.size() / 2) / 1000.0,
                micros.get((int) Math.ceil(micros.size() * 0.99) - 1) / 1000.0, micros.get(micros.size() - 1) / 1000.0);
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, AvroSerializer<TransactionAuthorizationRequested> s,
                             String topic, TransactionAuthorizationRequested tx) {
        Envelope e = tx.getEnvelope();
        producer.send(new ProducerRecord<>(topic, e.getKey().getBytes(StandardCharsets.UTF_8), s.serialize(topic, tx)));
    }

    private CepBenchmark() {
    }
}
