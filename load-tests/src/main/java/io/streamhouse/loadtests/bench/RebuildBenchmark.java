package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The rebuild rate of one of the api's projections against Kafka's own {@code ConsumerPerformance} on the same
 * topics, in the same run, against a running stack: it runs {@code ./streamhouse replay rebuild <target> --json}
 * (rebuild into a shadow from offset 0 to the cut, then verify it against live key by key), then one
 * {@code ConsumerPerformance} per input topic of the cut, reading as many records as that topic holds up to the cut,
 * and reports both rates and their ratio (goal ≥ 50 %, issue #22), and the rebuild's whole time, verification
 * included. The shadow is discarded afterwards. Loopback only; bounded by {@code --timeout}.
 */
@Command(name = "rebuild-benchmark", mixinStandardHelpOptions = true,
        description = "replay rebuild's rate against ConsumerPerformance on the same topics, against a running stack.")
public final class RebuildBenchmark implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--data", required = true, description = "The running stack's data directory (as for ./streamhouse up --data).")
    Path data;
    @Option(names = "--target", defaultValue = "serving", description = "serving or decisions (default ${DEFAULT-VALUE}).")
    String target;
    @Option(names = "--home", defaultValue = ".", description = "The Streamhouse checkout with the streamhouse script (default: the working directory).")
    Path home;
    @Option(names = "--timeout", defaultValue = "PT20M", description = "Limit for the rebuild (default ${DEFAULT-VALUE}).")
    Duration timeout;
    @Option(names = "--keep", description = "Keep the shadow (default: discard it after the run).")
    boolean keep;

    public static void main(String[] args) {
        System.exit(BenchmarkCommand.execute("rebuild-benchmark", new RebuildBenchmark(), args));
    }

    @Override
    public Integer call() throws Exception {
        Properties endpoints = new Properties();
        try (InputStream in = Files.newInputStream(data.resolve("endpoints.properties"))) {
            endpoints.load(in);
        }
        String bootstrap = endpoints.getProperty("kafka.bootstrap.servers");
        // The stack's Kafka logins, as the replay CLI adopts them (its child inherits this process's environment, not these).
        KafkaClientSettings.useUnlessConfigured(endpoints);
        if (bootstrap == null || !(bootstrap.startsWith("127.0.0.1:") || bootstrap.startsWith("localhost:"))) {
            io.streamhouse.control.CliLog.terminalError().println("loopback only: kafka.bootstrap.servers=" + bootstrap + " in " + data.resolve("endpoints.properties"));
            return 2;
        }
        String id = "bench-" + Instant.now().getEpochSecond();
        System.out.printf("rebuild %s into shadow %s (./streamhouse replay rebuild %s --json) ...%n", target, id, target);
        JsonNode summary = replay(List.of("rebuild", target, "--id", id, "--json", "--timeout", Long.toString(timeout.toSeconds())));
        Path saved = Path.of(home.toString(), "load-tests", "target", "rebuild-" + id + ".json");
        Files.createDirectories(saved.getParent());
        Files.writeString(saved, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(summary));
        JsonNode report = summary.path("targets").get(0);
        long events = report.path("events").asLong();
        long rebuildMs = report.path("durationMs").asLong();
        long wholeMs = summary.path("durationMs").asLong();

        Map<String, Long> cutOffsets = new TreeMap<>();
        report.path("cut").fields().forEachRemaining(e -> {
            String tp = e.getKey();
            cutOffsets.merge(tp.substring(0, tp.lastIndexOf('-')), e.getValue().asLong(), Long::sum);
        });
        Map<String, Long> records = countRecords(bootstrap, report.path("cut"));
        KafkaTool tool = new KafkaTool(Path.of(home.toString(), "load-tests", "target"));
        long cpMessages = 0, cpMillis = 0;
        for (Map.Entry<String, Long> topic : records.entrySet()) {
            if (topic.getValue() == 0) {
                continue;
            }
            KafkaTool.ConsumerPerf cp = tool.consumerPerformance(bootstrap, topic.getKey(), topic.getValue(), Duration.ofMinutes(10));
            long elapsedMs = Math.round(cp.records() * 1000.0 / cp.recordsPerSec());
            System.out.printf(Locale.ROOT, "  ConsumerPerformance %-36s %,10d records in %,7d ms (%,.0f/s; group join %,d ms)%n",
                    topic.getKey(), cp.records(), elapsedMs, cp.recordsPerSec(), cp.rebalanceMs());
            cpMessages += cp.records();
            cpMillis += elapsedMs;
        }
        if (!keep) {
            replayPlain(List.of("discard", id));
        }
        double rebuildRate = events * 1000.0 / Math.max(1, rebuildMs);
        double cpRate = cpMessages * 1000.0 / Math.max(1, cpMillis);
        System.out.printf(Locale.ROOT, "result: %s, %d divergences (the whole summary: %s)%n", summary.path("result").asText(),
                summary.path("divergences").asLong(), saved);
        for (JsonNode store : report.path("stores")) {
            if (store.path("divergentKeys").asLong() > 0) {
                System.out.printf(Locale.ROOT, "  %s: %,d of %,d keys differ, e.g. %s%n", store.path("store").asText(),
                        store.path("divergentKeys").asLong(), store.path("keys").asLong(),
                        store.path("differences").path(0).path("key").asText());
            }
        }
        System.out.printf(Locale.ROOT, "rebuild %s: %,d events (cut %,d offsets) in %,.1f s = %,.0f events/s; with verification %,.1f s%n",
                target, events, cutOffsets.values().stream().mapToLong(Long::longValue).sum(), rebuildMs / 1000.0, rebuildRate, wholeMs / 1000.0);
        System.out.printf(Locale.ROOT, "ConsumerPerformance, same topics one after another: %,d records in %,.1f s = %,.0f records/s%n",
                cpMessages, cpMillis / 1000.0, cpRate);
        System.out.printf(Locale.ROOT, "ratio rebuild / ConsumerPerformance: %.3f (goal >= 0.50)%n", rebuildRate / cpRate);
        return 0;
    }

    /** Records per topic before the cut (transaction markers excluded, aborted records included, as ConsumerPerformance reads). */
    private static Map<String, Long> countRecords(String bootstrap, JsonNode cut) {
        Properties props = new Properties();
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        Map<TopicPartition, Long> ends = new HashMap<>();
        cut.fields().forEachRemaining(e -> {
            String tp = e.getKey();
            int dash = tp.lastIndexOf('-');
            ends.put(new TopicPartition(tp.substring(0, dash), Integer.parseInt(tp.substring(dash + 1))), e.getValue().asLong());
        });
        Map<String, Long> counts = new TreeMap<>();
        ends.keySet().forEach(tp -> counts.putIfAbsent(tp.topic(), 0L));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS)
                .consumer(bootstrap, props))) {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            List<TopicPartition> open = new ArrayList<>(ends.keySet());
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!open.isEmpty() && System.nanoTime() < deadline) {
                open.removeIf(tp -> consumer.position(tp) >= ends.get(tp));
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() < ends.get(tp)) {
                        counts.merge(r.topic(), 1L, Long::sum);
                    }
                }
            }
            if (!open.isEmpty()) {
                throw new IllegalStateException("could not count the records before the cut on " + open + " within 10 minutes");
            }
        }
        return counts;
    }

    private JsonNode replay(List<String> args) throws IOException, InterruptedException {
        String out = run(args);
        int start = out.indexOf('{');
        if (start < 0) {
            throw new IOException("replay printed no JSON summary:\n" + out);
        }
        return JSON.readTree(out.substring(start));
    }

    private String replayPlain(List<String> args) throws IOException, InterruptedException {
        return run(args);
    }

    private String run(List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("streamhouse").toString(), "replay"));
        cmd.addAll(args);
        cmd.add("--data");
        cmd.add(data.toString());
        Process p = new ProcessBuilder(cmd).directory(home.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Thread reaper = new Thread(p::destroyForcibly, "replay-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(timeout.toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("replay did not finish within " + timeout);
            }
            // 0 equal, 1 divergent: both carry a summary; anything else is a failure of the run itself.
            if (p.exitValue() > 1) {
                throw new IOException("./streamhouse replay " + String.join(" ", args) + " exited with " + p.exitValue() + ":\n" + out);
            }
            return out;
        } finally {
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
    }
}
