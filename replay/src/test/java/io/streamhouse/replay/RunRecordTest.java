package io.streamhouse.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.control.RunResults;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/** The run records replay and the drills leave in {@code <data>/results/}; no broker: runs that stop before one. */
class RunRecordTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    private int replay(String... args) {
        return ReplayCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aRunThatActsOnAStackLeavesItsRecordEvenWhenItIsRefused(@TempDir Path data) throws Exception {
        Instant before = Instant.now();
        int exit = replay("promote", "no-such-shadow", "--data", data.toString());

        assertThat(exit).isEqualTo(ReplayCli.BAD_INPUT);
        List<Path> files = RunResults.newestFirst(data.resolve(RunResults.DIR));
        assertThat(files).hasSize(1);
        assertThat(files.get(0).getFileName().toString()).matches("\\d{8}T\\d{9}Z-promote\\.json");
        JsonNode run = Records.JSON.readTree(files.get(0).toFile());
        assertThat(run.get("kind").asText()).isEqualTo("promote");
        assertThat(run.get("command").asText()).isEqualTo("promote");
        assertThat(run.get("arguments")).extracting(JsonNode::asText).containsExactly("promote", "no-such-shadow", "--data", data.toString());
        Instant started = Instant.parse(run.get("startedAt").asText()), finished = Instant.parse(run.get("finishedAt").asText());
        assertThat(started).isBetween(before.truncatedTo(java.time.temporal.ChronoUnit.MILLIS), finished);
        assertThat(run.get("durationMs").asLong()).isEqualTo(finished.toEpochMilli() - started.toEpochMilli());
        assertThat(run.get("exitCode").asInt()).isEqualTo(2);
        assertThat(run.get("verdict").asText()).isEqualTo("BAD_INPUT");
        assertThat(run.get("error").asText()).contains("no rebuild or backfill 'no-such-shadow'");
        assertThat(run.get("summary").isNull()).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("replay: no rebuild or backfill");
    }

    /** A command that, as a drill does for its rebuild check, runs the replay CLI inside itself. */
    @CommandLine.Command(name = "outer")
    static final class Outer implements Callable<Integer> {
        @CommandLine.ParentCommand
        ReplayCli parent;
        @CommandLine.Mixin
        ReplayCli.Stack stack;

        @Override
        public Integer call() {
            int inner = ReplayCli.run(new String[]{"promote", "inner-shadow", "--data", stack.data().toString()}, parent.out(), parent.err());
            parent.summary(Map.of("result", "PASS", "innerExit", inner));
            return ReplayCli.EQUAL;
        }
    }

    @Test
    void aRunInsideAnotherIsPartOfItsRecordNotOneOfItsOwn(@TempDir Path data) throws Exception {
        int exit = ReplayCli.run(new String[]{"outer", "--data", data.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), new Outer());

        assertThat(exit).isZero();
        List<Path> files = RunResults.newestFirst(data.resolve(RunResults.DIR));
        assertThat(files).hasSize(1);
        JsonNode run = Records.JSON.readTree(files.get(0).toFile());
        assertThat(run.get("kind").asText()).isEqualTo("outer");
        assertThat(run.get("verdict").asText()).isEqualTo("PASS");
        assertThat(run.get("summary").get("innerExit").asInt()).isEqualTo(ReplayCli.BAD_INPUT);
    }

    @Test
    void helpAndUsageErrorsLeaveNoRecord(@TempDir Path data) throws Exception {
        assertThat(replay("promote", "--help", "--data", data.toString())).isZero();
        assertThat(replay("promote", "--data", data.toString())).isEqualTo(ReplayCli.BAD_INPUT);

        assertThat(data.resolve(RunResults.DIR)).doesNotExist();
    }

    @Test
    void aRecordThatCannotBeWrittenCostsOneLineAndNotTheExitCode(@TempDir Path dir) throws Exception {
        Path data = Files.writeString(dir.resolve("not-a-directory"), "");

        int exit = replay("promote", "no-such-shadow", "--data", data.toString());

        assertThat(exit).isEqualTo(ReplayCli.BAD_INPUT);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("replay: could not record this run in "))
                .toList()).hasSize(1).allSatisfy(l -> assertThat(l).contains(data.resolve(RunResults.DIR).toString()));
    }

    @Test
    void theVerdictIsTheSummarysResultAndTheSummaryIsKeptAsJsonPrintsIt() {
        Report.Summary summary = new Report.Summary("s1", "DIVERGENT", 3, 1200, List.of());
        Instant t0 = Instant.parse("2026-12-06T15:40:01.123Z");

        JsonNode run = RunRecord.json(List.of("rebuild"), new String[]{"rebuild", "serving", "--id", "s1"}, t0, t0.plusMillis(1500),
                ReplayCli.DIVERGENT, null, summary);

        assertThat(run.get("verdict").asText()).isEqualTo("DIVERGENT");
        assertThat(run.get("summary")).isEqualTo(Records.JSON.valueToTree(summary));
        assertThat(run.get("summary").get("divergences").asLong()).isEqualTo(3);
        assertThat(run.get("error").isNull()).isTrue();
        assertThat(RunRecord.verdict(ReplayCli.EQUAL, null)).isEqualTo("DONE");
        assertThat(RunRecord.verdict(ReplayCli.ENVIRONMENT, null)).isEqualTo("ENVIRONMENT");
    }

    @Test
    void argumentsKeepNoPasswords() {
        assertThat(RunRecord.withoutSecrets("jdbc:postgresql://db/lake?user=u&password=hunter2&ssl=true"))
                .isEqualTo("jdbc:postgresql://db/lake?user=u&password=***&ssl=true");
        assertThat(RunRecord.withoutSecrets("http://user:secret@127.0.0.1:8081")).isEqualTo("http://***@127.0.0.1:8081");
        assertThat(RunRecord.withoutSecrets("--data")).isEqualTo("--data");
    }
}
