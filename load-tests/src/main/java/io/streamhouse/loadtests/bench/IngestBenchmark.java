package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.loadtests.generator.Loopback;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Capture issue's benchmark: how many card-payment events per second get onto the log through ingest's HTTP
 * endpoint (one per request, and in batches) and straight to Kafka with our serializer (the generator's Kafka
 * target), each as a ratio to Kafka's own {@code ProducerPerformance} on the same broker in the same run. An event
 * counts once the broker acknowledged it (HTTP 202; a producer callback without error). The api runs while this is
 * measured and decides every payment written to {@code payments.transactions.requested}, as it would in production;
 * ProducerPerformance writes to a topic of its own that nothing reads.
 */
@Command(name = "ingest-benchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Ingest throughput (HTTP, direct to Kafka) against Kafka's ProducerPerformance in the same run.")
public final class IngestBenchmark implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--ingest", defaultValue = "http://127.0.0.1:8081", description = "Ingest base URL, loopback only (default ${DEFAULT-VALUE}).")
    String ingest;
    @Option(names = "--data", defaultValue = ".streamhouse", description = "The stack's data directory, for its payments token"
            + " (tokens/<role>.jwt, written by ./streamhouse up; STREAMHOUSE_TOKEN_<ROLE> overrides) (default ${DEFAULT-VALUE}).")
    java.nio.file.Path data;
    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap, loopback only (default ${DEFAULT-VALUE}).")
    String bootstrap;
    @Option(names = "--registry", defaultValue = "http://127.0.0.1:8085", description = "Schema registry, loopback only (default ${DEFAULT-VALUE}).")
    String registry;
    @Option(names = "--records", defaultValue = "300000", description = "Records for ProducerPerformance and the direct-to-Kafka path (default ${DEFAULT-VALUE}).")
    int records;
    @Option(names = "--size", defaultValue = "300", description = "ProducerPerformance record size, about a payment's Avro record (default ${DEFAULT-VALUE}).")
    int size;
    @Option(names = "--http-duration", defaultValue = "PT30S", description = "Time per HTTP step (default ${DEFAULT-VALUE}).")
    Duration httpDuration;
    @Option(names = "--http-clients", defaultValue = "64", description = "Concurrent HTTP clients sending one payment per request (default ${DEFAULT-VALUE}).")
    int httpClients;
    @Option(names = "--batch-clients", defaultValue = "8", description = "Concurrent HTTP clients sending batches; clients x batch must stay within ingest's streamhouse.max-in-flight (1000), else it answers 429 by design (default ${DEFAULT-VALUE}).")
    int batchClients;
    @Option(names = "--batch", defaultValue = "100", description = "Payments per request in the batch step (default ${DEFAULT-VALUE}).")
    int batch;
    @Option(names = "--tools", defaultValue = "load-tests/target", description = "Directory holding kafka-tools.classpath (default ${DEFAULT-VALUE}).")
    Path tools;

    public static void main(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(BenchmarkCommand.execute("ingest-benchmark", new IngestBenchmark(), args));
    }

    @Override
    public Integer call() throws Exception {
        URI ingestUri = Loopback.requireUri(ingest, "--ingest");
        Loopback.requireBootstrap(bootstrap);
        String runId = Long.toString(System.currentTimeMillis(), 36);
        System.out.printf(Locale.ROOT, "Ingest benchmark %s at %s, %d cores%n", runId, Instant.now(), Runtime.getRuntime().availableProcessors());

        KafkaTool.ProducerPerf perf = producerPerformance(runId);
        System.out.printf(Locale.ROOT, "Kafka ProducerPerformance (%d x %d B, acks=all, idempotent, 6 partitions): %.0f records/s, p99 %d ms%n",
                perf.records(), size, perf.recordsPerSec(), perf.p99());

        double direct = direct(runId);
        System.out.printf(Locale.ROOT, "straight to Kafka (generator's Kafka target, Avro wire format, acks=all): %.0f events/s%n", direct);

        BenchPayments payments = new BenchPayments(runId, 7);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        Step single = http(http, ingestUri, payments, "s", 1, httpClients);
        System.out.printf(Locale.ROOT, "HTTP, 1 per request, %d clients: %.0f events/s (%d requests, refused %d, failed %d %s)%n",
                httpClients, single.eventsPerSecond(), single.requests(), single.refused(), single.failed(), single.failures());
        Step batched = http(http, ingestUri, payments, "b", batch, batchClients);
        System.out.printf(Locale.ROOT, "HTTP, %d per request, %d clients: %.0f events/s (%d requests, refused %d, failed %d %s)%n",
                batch, batchClients, batched.eventsPerSecond(), batched.requests(), batched.refused(), batched.failed(), batched.failures());

        System.out.println();
        System.out.println("| path | events/s | ratio to ProducerPerformance |");
        System.out.println("|---|---|---|");
        System.out.printf(Locale.ROOT, "| Kafka ProducerPerformance (%d B, acks=all) | %.0f | 1.00 |%n", size, perf.recordsPerSec());
        System.out.printf(Locale.ROOT, "| straight to Kafka (Avro, registry, acks=all) | %.0f | %.2f |%n", direct, direct / perf.recordsPerSec());
        System.out.printf(Locale.ROOT, "| HTTP `POST /v1/transactions`, 1 per request, %d clients | %.0f | %.3f |%n", httpClients,
                single.eventsPerSecond(), single.eventsPerSecond() / perf.recordsPerSec());
        System.out.printf(Locale.ROOT, "| HTTP `POST /v1/transactions`, %d per request, %d clients | %.0f | %.3f |%n", batch, batchClients,
                batched.eventsPerSecond(), batched.eventsPerSecond() / perf.recordsPerSec());
        return 0;
    }

    private KafkaTool.ProducerPerf producerPerformance(String runId) throws Exception {
        String topic = "bench." + runId + ".perf";
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS).admin(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try {
                return new KafkaTool(tools).producerPerformance(bootstrap, topic, records, size, Duration.ofMinutes(5));
            } finally {
                admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** The generator's payments, serialized and sent as its Kafka target does; timed from first send to last ack. */
    private double direct(String runId) throws Exception {
        List<GeneratedEvent> events = Generator.generate(GeneratorConfig.defaults(Long.parseLong(runId, 36), records * 3))
                .events().stream().filter(e -> e.kind() == EventKind.TRANSACTION).limit(records).toList();
        try (KafkaSink sink = new KafkaSink(bootstrap, registry, Map.of())) {
            sink.send(events.get(0)); // registers the schema before timing
            sink.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
            long began = System.nanoTime();
            for (int i = 1; i < events.size(); i++) {
                sink.send(events.get(i));
            }
            sink.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(120));
            return (events.size() - 1) / ((System.nanoTime() - began) / 1e9);
        }
    }

    private record Step(long events, long requests, long refused, long failed, Map<String, Long> failures, Duration elapsed) {
        double eventsPerSecond() {
            return events / (elapsed.toNanos() / 1e9);
        }
    }

    private Step http(HttpClient http, URI ingestUri, BenchPayments payments, String phase, int perRequest, int clientCount)
            throws InterruptedException, java.io.IOException {
        URI endpoint = ingestUri.resolve("/v1/transactions");
        String token = io.streamhouse.security.StackTokens.read(data, io.streamhouse.security.Roles.PAYMENTS);
        Clock clock = Clock.systemUTC();
        AtomicLong next = new AtomicLong();
        LongAdder events = new LongAdder();
        LongAdder requests = new LongAdder();
        LongAdder refused = new LongAdder();
        LongAdder failed = new LongAdder();
        Map<String, Long> failures = new ConcurrentHashMap<>();
        long began = System.nanoTime();
        long until = began + httpDuration.toNanos();
        Thread[] clients = new Thread[clientCount];
        for (int c = 0; c < clientCount; c++) {
            clients[c] = new Thread(() -> {
                while (System.nanoTime() < until) {
                    long first = next.getAndAdd(perRequest);
                    byte[] body = body(payments, phase, first, perRequest, clock.instant());
                    try {
                        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30))
                                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                        requests.increment();
                        if (r.statusCode() == 202) {
                            JsonNode answer = JSON.readTree(r.body());
                            events.add(answer.isArray() ? answer.size() : 1);
                        } else if (r.statusCode() == 429) {
                            refused.increment();
                        } else {
                            failed.increment();
                            failures.merge("HTTP " + r.statusCode(), 1L, Long::sum);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    } catch (Exception e) {
                        failed.increment();
                        failures.merge(e.getClass().getSimpleName(), 1L, Long::sum);
                    }
                }
            }, "bench-ingest-" + c);
            clients[c].start();
        }
        for (Thread t : clients) {
            t.join(httpDuration.toMillis() + 60_000);
        }
        return new Step(events.sum(), requests.sum(), refused.sum(), failed.sum(), Map.copyOf(failures),
                Duration.ofNanos(System.nanoTime() - began));
    }

    private static byte[] body(BenchPayments payments, String phase, long first, int count, Instant at) {
        if (count == 1) {
            return payments.body(phase, first, at);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(count * 400);
        out.write('[');
        for (int k = 0; k < count; k++) {
            if (k > 0) {
                out.write(',');
            }
            out.writeBytes(payments.body(phase, first + k, at));
        }
        out.write(']');
        return out.toString(StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
    }
}
