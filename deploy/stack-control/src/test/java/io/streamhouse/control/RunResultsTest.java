package io.streamhouse.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunResultsTest {
    private static final Instant T0 = Instant.parse("2026-12-06T15:40:01.123Z");

    @Test
    void namesAFileByItsUtcStartAndKindAndWritesItWholeWithNoTemporaryFileLeft(@TempDir Path data) throws IOException {
        Path dir = data.resolve(RunResults.DIR);
        Path file = RunResults.write(dir, T0, "drill-kill-api", "{\"kind\": \"drill\"}\n");

        assertThat(file.getFileName().toString()).isEqualTo("20261206T154001123Z-drill-kill-api.json");
        assertThat(file).hasContent("{\"kind\": \"drill\"}");
        try (var entries = Files.list(dir)) {
            assertThat(entries).containsExactly(file);
        }
        assertThatThrownBy(() -> RunResults.fileName(T0, "../status")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSecondRunInTheSameMillisecondGetsItsOwnFile(@TempDir Path dir) throws IOException {
        Path first = RunResults.write(dir, T0, "rebuild", "{\"n\": 1}");
        Path second = RunResults.write(dir, T0, "rebuild", "{\"n\": 2}");

        assertThat(second.getFileName().toString()).isEqualTo("20261206T154001123Z-rebuild-2.json");
        assertThat(first).hasContent("{\"n\": 1}");
        assertThat(second).hasContent("{\"n\": 2}");
    }

    @Test
    void keepsTheNewestHundredAndLeavesOtherFilesAlone(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("notes.txt"), "mine");
        for (int i = 0; i < RunResults.KEEP + 5; i++) {
            RunResults.write(dir, T0.plusSeconds(i), "rebuild", "{\"run\": " + i + "}");
        }

        List<Path> kept = RunResults.newestFirst(dir);
        assertThat(kept).hasSize(RunResults.KEEP);
        assertThat(kept.get(0)).hasContent("{\"run\": 104}");
        assertThat(kept.get(kept.size() - 1)).hasContent("{\"run\": 5}");
        assertThat(dir.resolve("notes.txt")).exists();
    }

    @Test
    void listsNewestFirstOnlyFilesNamedAsRunsAndNothingForAMissingDirectory(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("20261206T154001123Z-rebuild.json"), "{}");
        Files.writeString(dir.resolve("20261207T000000000Z-drill-burst.json"), "{}");
        Files.writeString(dir.resolve(".run-123.tmp"), "{");
        Files.writeString(dir.resolve("status.json"), "{}");

        assertThat(RunResults.newestFirst(dir)).extracting(p -> p.getFileName().toString())
                .containsExactly("20261207T000000000Z-drill-burst.json", "20261206T154001123Z-rebuild.json");
        assertThat(RunResults.newestFirst(dir.resolve("none"))).isEmpty();
    }
}
