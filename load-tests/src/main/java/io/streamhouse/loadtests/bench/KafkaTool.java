package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one of Kafka's own tools ({@code org.apache.kafka.tools.*}, from the {@code kafka-tools} artifact of the same
 * version as the broker) in a child JVM, as {@code bin/kafka-*.sh} would, and returns its output. The classpath is
 * the one Maven wrote next to load-tests' classes ({@code kafka-tools.classpath} + {@code classpath.txt}). The child
 * is bounded by a timeout and destroyed if it outlives it or this JVM.
 */
public final class KafkaTool {
    private static final Pattern E2E = Pattern.compile(
            "Percentiles: 50th = (\\d+), 99th = (\\d+), 99\\.9th = (\\d+)");
    private static final Pattern PERF = Pattern.compile(
            "(\\d+) records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), ([\\d.]+) ms avg latency, ([\\d.]+) ms max latency, "
                    + "(\\d+) ms 50th, (\\d+) ms 95th, (\\d+) ms 99th, (\\d+) ms 99\\.9th");

    /** EndToEndLatency's summary line: one message at a time, produce then consume, in milliseconds. */
    record EndToEnd(long p50, long p99, long p999) {
    }

    /** ProducerPerformance's final line. */
    record ProducerPerf(long records, double recordsPerSec, double mbPerSec, double avgMs, long p50, long p99, long p999) {
    }

    private final Path classesDir;

    /**
     * ConsumerPerformance's summary: {@code recordsPerSec} over its whole run (group join included),
     * {@code fetchRecordsPerSec} over the fetching only (the figure a restore compares with).
     */
    public record ConsumerPerf(long records, double mb, double recordsPerSec, long rebalanceMs, long fetchMs,
                               double fetchRecordsPerSec) {
    }

    public KafkaTool(Path loadTestsTarget) {
        this.classesDir = loadTestsTarget;
    }

    EndToEnd endToEndLatency(String bootstrap, String topic, int messages, int size, Duration timeout)
            throws IOException, InterruptedException {
        List<String> out = run("org.apache.kafka.tools.EndToEndLatency",
                List.of(bootstrap, topic, Integer.toString(messages), "all", Integer.toString(size), clientConfig().toString()), timeout);
        for (String line : out) {
            Matcher m = E2E.matcher(line);
            if (m.find()) {
                return new EndToEnd(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)));
            }
        }
        throw new IOException("EndToEndLatency printed no percentiles:\n" + String.join("\n", out));
    }

    ProducerPerf producerPerformance(String bootstrap, String topic, long records, int size, Duration timeout)
            throws IOException, InterruptedException {
        List<String> out = run("org.apache.kafka.tools.ProducerPerformance",
                List.of("--topic", topic, "--num-records", Long.toString(records), "--record-size", Integer.toString(size),
                        "--throughput", "-1", "--producer.config", clientConfig().toString(),
                        "--producer-props", "bootstrap.servers=" + bootstrap, "acks=all", "enable.idempotence=true"), timeout);
        for (String line : out) {
            Matcher m = PERF.matcher(line);
            if (m.find()) {
                return new ProducerPerf(Long.parseLong(m.group(1)), Double.parseDouble(m.group(2)),
                        Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)), Long.parseLong(m.group(6)),
                        Long.parseLong(m.group(8)), Long.parseLong(m.group(9)));
            }
        }
        throw new IOException("ProducerPerformance printed no summary:\n" + String.join("\n", out));
    }

    /** Reads {@code records} records of {@code topic} from its beginning, in a fresh group. */
    public ConsumerPerf consumerPerformance(String bootstrap, String topic, long records, Duration timeout)
            throws IOException, InterruptedException {
        List<String> out = run("org.apache.kafka.tools.ConsumerPerformance",
                List.of("--bootstrap-server", bootstrap, "--topic", topic, "--messages", Long.toString(records),
                        "--timeout", "10000", "--group", "bench-consumer-perf-" + System.nanoTime(),
                        "--consumer.config", clientConfig().toString()), timeout);
        // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms,
        // fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
        for (String line : out) {
            String[] f = line.split(",\\s*");
            if (f.length == 10 && f[4].matches("\\d+")) {
                return new ConsumerPerf(Long.parseLong(f[4]), Double.parseDouble(f[2]), Double.parseDouble(f[5]),
                        Long.parseLong(f[6]), Long.parseLong(f[7]), Double.parseDouble(f[9]));
            }
        }
        throw new IOException("ConsumerPerformance printed no summary:\n" + String.join("\n", out));
    }

    /**
     * The tools' client settings (user {@code load-tests}, as every benchmark client): a properties file readable by the
     * owner only, so the password appears neither on a command line nor in the environment. Written once per JVM.
     */
    private static synchronized Path clientConfig() throws IOException {
        if (clientConfig == null) {
            java.util.Properties p = new java.util.Properties();
            p.putAll(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS).security());
            Path file = Files.createTempFile("streamhouse-kafka-tool-", ".properties",
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
            file.toFile().deleteOnExit();
            try (var out = Files.newOutputStream(file)) {
                p.store(out, "Kafka client settings of the load-tests user (KafkaClientSettings)");
            }
            clientConfig = file;
        }
        return clientConfig;
    }

    private static Path clientConfig;

    private List<String> run(String mainClass, List<String> args, Duration timeout) throws IOException, InterruptedException {
        Path tools = classesDir.resolve("kafka-tools.classpath");
        Path runtime = classesDir.resolve("classpath.txt");
        if (!Files.isRegularFile(tools) || !Files.isRegularFile(runtime)) {
            throw new IOException("Kafka's tools classpath is missing (" + tools + "): build load-tests with "
                    + "./mvnw -pl load-tests -am package -DskipTests");
        }
        String cp = Files.readString(tools).trim() + java.io.File.pathSeparator + Files.readString(runtime).trim();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-cp", cp, mainClass));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Thread reaper = new Thread(p::destroyForcibly, "kafka-tool-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        List<String> lines = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "kafka-tool-output");
        reader.start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IOException(mainClass + " did not finish within " + timeout);
            }
            reader.join(5_000);
            if (p.exitValue() != 0) {
                throw new IOException(mainClass + " exited with " + p.exitValue() + ":\n" + String.join("\n", lines));
            }
            synchronized (lines) {
                return List.copyOf(lines);
            }
        } finally {
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
    }
}
