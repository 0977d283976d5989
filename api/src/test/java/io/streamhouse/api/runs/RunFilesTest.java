package io.streamhouse.api.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.control.RunResults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class RunFilesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-12-06T15:40:01.123Z");
    private final RunFiles files = new RunFiles(JSON);

    @Test
    void servesTheNewestRecordsAsWrittenWithTheirFileNames(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 5; i++) {
            RunResults.write(dir, T0.plusSeconds(i), "rebuild", "{\"kind\": \"rebuild\", \"run\": " + i + ", \"summary\": {\"result\": \"EQUAL\"}}");
        }
        Files.writeString(dir.resolve("status.json"), "{\"not\": \"a run\"}");

        JsonNode answer = files.newest(dir, 3);

        assertThat(answer.get("limit").asInt()).isEqualTo(3);
        assertThat(answer.get("available").asInt()).isEqualTo(5);
        assertThat(answer.get("runs")).extracting(r -> r.get("run").asInt()).containsExactly(4, 3, 2);
        JsonNode newest = answer.get("runs").get(0);
        assertThat(newest.get("file").asText()).isEqualTo("20261206T154005123Z-rebuild.json");
        assertThat(newest.get("summary").get("result").asText()).isEqualTo("EQUAL");
        assertThat(newest.fieldNames()).toIterable().containsExactly("file", "kind", "run", "summary");
    }

    @Test
    void anUnreadableRecordIsListedWithAnErrorAndTheOthersStillCome(@TempDir Path dir) throws Exception {
        RunResults.write(dir, T0, "drill-kill-api", "{\"verdict\": \"PASS\"}");
        Files.writeString(dir.resolve("20261206T154002000Z-rebuild.json"), "{\"verdict\": ");
        Files.writeString(dir.resolve("20261206T154003000Z-promote.json"), "[1, 2]");
        Files.writeString(dir.resolve("20261206T154004000Z-backfill.json"), "{\"file\": \"../../etc/passwd\"}");

        JsonNode runs = files.newest(dir, 10).get("runs");

        assertThat(runs).hasSize(4);
        assertThat(runs.get(0).get("file").asText()).isEqualTo("20261206T154004000Z-backfill.json");
        assertThat(runs.get(1).get("error").asText()).isEqualTo("not a JSON object");
        assertThat(runs.get(2).get("error").asText()).startsWith("unreadable: ").doesNotContain(dir.toString());
        assertThat(runs.get(2).get("file").asText()).isEqualTo("20261206T154002000Z-rebuild.json");
        assertThat(runs.get(3).get("verdict").asText()).isEqualTo("PASS");
        assertThat(runs.get(3).has("error")).isFalse();
    }

    @Test
    void aMissingDirectoryHasNoRuns(@TempDir Path dir) throws Exception {
        JsonNode answer = files.newest(dir.resolve("results"), 20);

        assertThat(answer.get("available").asInt()).isZero();
        assertThat(answer.get("runs")).isEmpty();
    }
}
