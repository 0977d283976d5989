package io.streamhouse.broker;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** kill -9 of the JVM that started a broker must not leave the broker running. */
class BrokerOrphanIT {

    @Test
    void brokerExitsWhenItsParentIsKilledHard() throws Exception {
        Path dataDir = TestDirs.fresh("broker-orphan");
        Path parentLog = dataDir.resolveSibling(dataDir.getFileName() + "-parent.log");
        Process parent = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                OrphanParentMain.class.getName(), dataDir.toString()))
                .redirectError(parentLog.toFile())
                .start();
        long brokerPid;
        try {
            CompletableFuture<Long> pidLine = CompletableFuture.supplyAsync(() -> {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        if (line.startsWith("BROKER-PID ")) {
                            return Long.parseLong(line.substring("BROKER-PID ".length()).trim());
                        }
                    }
                    throw new IllegalStateException("parent ended without a broker; see " + parentLog);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            brokerPid = pidLine.get(90, TimeUnit.SECONDS);
        } catch (Exception e) {
            parent.destroyForcibly();
            throw new AssertionError("parent did not report a broker; its log:\n" + Files.readString(parentLog), e);
        }
        ProcessHandle broker = ProcessHandle.of(brokerPid).orElseThrow();
        assertThat(broker.isAlive()).isTrue();
        assertThat(broker.parent().map(ProcessHandle::pid)).contains(parent.pid());

        parent.destroyForcibly(); // SIGKILL: no shutdown hook runs in the parent
        assertThat(parent.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(parent.exitValue()).isEqualTo(128 + 9);

        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> !broker.isAlive());
        } finally {
            broker.destroyForcibly(); // only if the assertion failed: never leave it behind
        }
        assertThat(Files.readString(dataDir.resolve(BrokerMain.LOG_FILE)))
                .contains("stdin reached end-of-file")
                .contains("server shut down cleanly");
    }
}
