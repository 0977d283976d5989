package io.streamhouse.lake;

import io.streamhouse.security.kafka.KafkaClientSettings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link LakeAuditMain} in a child JVM on the lake's recorded classpath, for a caller without Iceberg or Hadoop
 * on its own ({@code replay drill}). JDK only. Returns the per-topic audits once the child exited 0 (all equal) or
 * 1 (a difference); throws with the child's output on any other exit or when it outlives {@code timeout} (it is then
 * killed).
 */
public final class LakeAuditProcess {

    /** The audits, and whether every table equals its topic. */
    public record Result(boolean equal, List<LakeAudit.TopicAudit> topics) {
    }

    private LakeAuditProcess() {
    }

    /** @param catalogFile the catalog's properties, as the platform wrote them for the table JVM */
    public static Result audit(Path catalogFile, String bootstrap, String deadLetterTopic, Path workDir, Duration timeout) {
        Path output = workDir.resolve("lake-audit.log");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-cp", LakeTablesProcess.childClasspath(), LakeAuditMain.class.getName(),
                "--catalog", catalogFile.toString(), "--bootstrap", bootstrap, "--dead-letter-topic", deadLetterTopic);
        Process process;
        try {
            Files.createDirectories(workDir);
            ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            // It reads the topics as user platform, with the Kafka settings this process runs with (a property here is
            // not inherited by the child; the variables are).
            builder.environment().putAll(KafkaClientSettings.childEnvironment());
            process = builder.start();
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot launch the lake's audit JVM", e);
        }
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException("the lake audit took longer than " + timeout.toSeconds() + " s; killed. Output:\n" + read(output));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while auditing the lake", e);
        }
        String text = read(output);
        if (process.exitValue() != 0 && process.exitValue() != 1) {
            throw new IllegalStateException("the lake audit failed (exit " + process.exitValue() + "):\n" + text);
        }
        List<LakeAudit.TopicAudit> topics = new ArrayList<>();
        text.lines().filter(l -> l.startsWith(LakeAuditMain.LINE_PREFIX)).forEach(l -> topics.add(parse(l.substring(LakeAuditMain.LINE_PREFIX.length()))));
        if (topics.isEmpty()) {
            throw new IllegalStateException("the lake audit printed no table:\n" + text);
        }
        return new Result(process.exitValue() == 0, topics);
    }

    static LakeAudit.TopicAudit parse(String line) {
        String[] parts = line.split(" ");
        Map<String, String> f = new TreeMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            f.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
        }
        String examples = f.getOrDefault("examples", "");
        return new LakeAudit.TopicAudit(parts[0], Long.parseLong(f.get("rows")), Long.parseLong(f.get("committed")),
                Long.parseLong(f.get("deadLettered")), Long.parseLong(f.get("missing")), Long.parseLong(f.get("extra")),
                Long.parseLong(f.get("duplicates")),
                examples.isEmpty() ? List.of() : Arrays.stream(examples.split(";")).map(e -> e.replace('_', ' ')).toList());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }
}
