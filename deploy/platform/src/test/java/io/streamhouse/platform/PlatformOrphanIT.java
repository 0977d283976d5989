package io.streamhouse.platform;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** kill -9 of the JVM that started the platform leaves neither the broker nor the postmaster running. */
class PlatformOrphanIT {

    @Test
    void brokerAndPostgresEndWhenTheirParentIsKilledHard() throws Exception {
        Path dataDir = TestDirs.fresh("orphan");
        Path parentLog = dataDir.resolveSibling(dataDir.getFileName() + "-parent.log");
        Process parent = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + Path.of("target").toAbsolutePath(),
                "-cp", System.getProperty("java.class.path"),
                PlatformParentMain.class.getName(), dataDir.toString()))
                .redirectError(parentLog.toFile())
                .start();
        List<ProcessHandle> children;
        try {
            long[] pids = CompletableFuture.supplyAsync(() -> readPids(parent, parentLog)).get(120, TimeUnit.SECONDS);
            children = Arrays.stream(pids).mapToObj(pid -> ProcessHandle.of(pid).orElseThrow()).toList();
        } catch (Exception e) {
            parent.destroyForcibly();
            throw new AssertionError("parent did not report its processes; its log:\n" + Files.readString(parentLog), e);
        }
        assertThat(children).hasSize(2).allMatch(ProcessHandle::isAlive);

        parent.destroyForcibly(); // SIGKILL: no shutdown hook runs in the parent
        assertThat(parent.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(parent.exitValue()).isEqualTo(128 + 9);

        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            children.forEach(ProcessHandle::destroyForcibly); // only if the assertion failed: never leave them behind
        }
        assertThat(dataDir.resolve("postgres-watchdog.log")).content().contains("parent gone; fast shutdown");
        assertThat(dataDir.resolve("kafka").resolve("broker.log")).content().contains("stdin reached end-of-file");
    }

    private static long[] readPids(Process parent, Path parentLog) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("PIDS ")) {
                    return Arrays.stream(line.substring(5).trim().split(" ")).mapToLong(Long::parseLong).toArray();
                }
            }
            throw new IllegalStateException("parent ended without starting the platform; see " + parentLog);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
