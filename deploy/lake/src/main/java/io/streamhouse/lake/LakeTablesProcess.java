package io.streamhouse.lake;

import io.streamhouse.supervisor.RecordedClasspath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link LakeTablesMain} in a child JVM and waits for it, from the parent (the platform), which has no Iceberg
 * or Hadoop jar on its classpath. JDK only: the child's classpath is the resource {@value #CLASSPATH_RESOURCE}
 * recorded at build time, as for the broker and the Connect worker.
 *
 * <p>Guarantees: returns the child's summary line once it exited 0; otherwise throws with its exit code and output.
 * The child is killed if it runs past {@link #TIMEOUT}. The catalog properties (they hold the database password) are
 * written to a file readable by the owner only.
 */
public final class LakeTablesProcess {

    public static final String CLASSPATH_RESOURCE = "streamhouse-lake.classpath";
    public static final Duration TIMEOUT = Duration.ofSeconds(120);

    private LakeTablesProcess() {
    }

    /** Creates or evolves every landed topic's table in the catalog given by {@code catalogProperties}. */
    public static String ensureTables(Map<String, String> catalogProperties, Path workDir) {
        Path props = workDir.resolve("lake-catalog.properties");
        Path output = workDir.resolve("lake-tables.log");
        try {
            Files.createDirectories(workDir);
            Files.deleteIfExists(props);
            Files.createFile(props, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (Writer out = Files.newBufferedWriter(props, StandardCharsets.UTF_8)) {
                java.util.Properties p = new java.util.Properties();
                p.putAll(new TreeMap<>(catalogProperties));
                p.store(out, "Iceberg catalog of the lake, written by " + LakeTablesProcess.class.getName());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + props, e);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:-UsePerfData");
        command.add("-cp");
        command.add(childClasspath());
        command.add(LakeTablesMain.class.getName());
        command.add("--catalog");
        command.add(props.toString());
        Process process;
        try {
            process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot launch the lake's table JVM: " + command.get(0), e);
        }
        try {
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException("creating the lake's tables took longer than " + TIMEOUT.toSeconds()
                        + " s; killed pid " + process.pid() + ". Output:\n" + read(output));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the lake's tables", e);
        }
        String text = read(output);
        if (process.exitValue() != 0) {
            throw new IllegalStateException("creating the lake's tables failed (exit " + process.exitValue() + "):\n" + text);
        }
        return text.lines().filter(l -> l.startsWith(LakeTablesMain.DONE_PREFIX))
                .map(l -> l.substring(LakeTablesMain.DONE_PREFIX.length())).findFirst()
                .orElseThrow(() -> new IllegalStateException("the lake's table JVM exited 0 without its summary:\n" + text));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    static String childClasspath() {
        return RecordedClasspath.of(LakeTablesProcess.class, CLASSPATH_RESOURCE, "deploy/lake");
    }
}
