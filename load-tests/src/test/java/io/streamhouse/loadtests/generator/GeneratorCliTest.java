package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class GeneratorCliTest {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    int run(String... args) {
        return GeneratorCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void fileTargetWritesEventsGroundTruthAndSummary(@TempDir Path dir) throws Exception {
        int code = run("--seed", "42", "--events", "5000", "--start", "2026-03-02T09:00:00Z", "--late-ratio", "0.10",
                "--target", "file", "--out", dir.toString());

        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(Files.readAllLines(dir.resolve("events.jsonl"))).hasSize(5000);
        var summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertThat(summary.path("events").path("total").asInt()).isEqualTo(5000);
        assertThat(Files.readAllLines(dir.resolve("ground-truth.jsonl"))).hasSize(summary.path("anomalies").path("total").asInt())
                .isNotEmpty();
        assertThat(Files.readAllLines(dir.resolve("late-events.jsonl"))).hasSize(summary.path("late").path("total").asInt());
        assertThat(Files.readAllLines(dir.resolve("cards.jsonl"))).isNotEmpty();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Generated 5,000 events (seed 42)").contains("Sent 5,000");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("5,000/5,000").contains("ETA");
    }

    @Test
    void sameOptionsWriteTheSameBytes(@TempDir Path a, @TempDir Path b) throws Exception {
        assertThat(run("--events", "3000", "--out", a.toString(), "--no-progress")).isZero();
        assertThat(run("--events", "3000", "--out", b.toString(), "--no-progress")).isZero();
        for (String file : new String[]{"events.jsonl", "ground-truth.jsonl", "late-events.jsonl", "summary.json", "cards.jsonl", "customers.jsonl"}) {
            assertThat(Files.readAllBytes(a.resolve(file))).as(file).isEqualTo(Files.readAllBytes(b.resolve(file)));
        }
    }

    @Test
    void theFileTargetsDefaultStartIsFixed(@TempDir Path dir) throws Exception {
        assertThat(run("--events", "1000", "--out", dir.toString(), "--no-progress")).isZero();

        var summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertThat(summary.path("config").path("start").asText()).isEqualTo("2026-03-02T09:00:00Z");
    }

    @Test
    void aStacksDefaultStartEndsTheRunBeforeNow(@TempDir Path dir, @TempDir Path noStack) throws Exception {
        Instant now = Instant.parse("2026-12-04T21:37:12Z");
        // No stack there (no tokens): the run is generated and its ground truth written before sending fails.
        int code = GeneratorCli.run(new String[]{"--target", "http", "--ingest", "http://127.0.0.1:9", "--data", noStack.toString(),
                        "--events", "2000", "--out", dir.toString(), "--no-progress"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(now, ZoneOffset.UTC));

        assertThat(code).isEqualTo(1);
        var events = new ObjectMapper().readTree(dir.resolve("summary.json").toFile()).path("events");
        Instant last = Instant.parse(events.path("lastOccurredAt").asText());
        assertThat(last).isBefore(now.minus(RelativeStart.MARGIN).plusMillis(1)).isAfter(now.minus(RelativeStart.MARGIN).minusSeconds(1));
    }

    @Test
    void anExplicitStartIsKeptForAStackToo(@TempDir Path dir, @TempDir Path noStack) throws Exception {
        run("--target", "http", "--ingest", "http://127.0.0.1:9", "--data", noStack.toString(), "--start", "2026-03-02T09:00:00Z",
                "--events", "1000", "--out", dir.toString(), "--no-progress");

        var summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertThat(summary.path("config").path("start").asText()).isEqualTo("2026-03-02T09:00:00Z");
    }

    @Test
    void theLastTargetGivenWins(@TempDir Path dir) {
        // ./streamhouse generate passes --target kafka ahead of the user's options.
        assertThat(run("--target", "kafka", "--target", "file", "--events", "500", "--out", dir.toString(), "--no-progress")).isZero();
        assertThat(dir.resolve("events.jsonl")).exists();
    }

    @Test
    void httpAndMqttTargetsSayWhichKindsTheyCannotCarry(@TempDir Path dir) {
        int code = run("--target", "http", "--kinds", "TRANSACTION,ORDER", "--events", "1000", "--out", dir.toString());

        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("carries only").contains("PARCEL_SCAN")
                .contains("change data capture").contains("--kinds");
        assertThat(dir.resolve("ground-truth.jsonl")).doesNotExist();

        err.reset();
        assertThat(run("--target", "mqtt", "--kinds", "TRANSACTION", "--events", "1000", "--out", dir.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("carries only [VEHICLE_TELEMETRY]");
    }

    @Test
    void refusesANonLoopbackMqttBroker(@TempDir Path dir) {
        assertThat(run("--target", "mqtt", "--mqtt", "tcp://mqtt.fleet.example:1883", "--events", "1000", "--out",
                dir.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("loopback").contains("mqtt.fleet.example");
    }

    @Test
    void refusesANonLoopbackBroker(@TempDir Path dir) {
        int code = run("--target", "kafka", "--bootstrap", "kafka.prod:9092", "--out", dir.toString());

        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("loopback").contains("kafka.prod:9092");
    }

    @Test
    void badUsageIsExitCodeTwo() {
        assertThat(run("--events", "lots")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--events");
    }
}
