package io.streamhouse.detection.cep;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

/** The newest completed checkpoint, and directories that are not there (any more). */
class RetainedCheckpointsTest {

    @Test
    void theNewestCheckpointWithMetadataWinsAndOneWithoutIsSkipped(@TempDir Path dir) throws Exception {
        Path old = Files.createDirectories(dir.resolve("job-a/chk-3"));
        Files.writeString(old.resolve("_metadata"), "x");
        Files.setLastModifiedTime(old.resolve("_metadata"), FileTime.fromMillis(1_000));
        Path newer = Files.createDirectories(dir.resolve("job-b/chk-7"));
        Files.writeString(newer.resolve("_metadata"), "x");
        Files.setLastModifiedTime(newer.resolve("_metadata"), FileTime.fromMillis(2_000));
        Files.createDirectories(dir.resolve("job-b/chk-8")); // never completed: no _metadata
        Path savepoint = Files.createDirectories(dir.resolve("savepoints/savepoint-1"));
        Files.writeString(savepoint.resolve("_metadata"), "x");
        Files.writeString(dir.resolve("a-file"), "not a directory");

        assertThat(RetainedCheckpoints.newest(dir.toString())).contains(newer.toAbsolutePath().toString());
        assertThat(RetainedCheckpoints.newest(dir.toUri().toString())).contains(newer.toAbsolutePath().toString());
    }

    @Test
    void aDirectoryThatIsGoneHasNoEntriesAndNoCheckpoint(@TempDir Path dir) {
        assertThat(RetainedCheckpoints.children(dir.resolve("deleted-meanwhile"))).isEmpty();
        assertThat(RetainedCheckpoints.children(dir.resolve("x").resolve("y"))).isEmpty();
        assertThat(RetainedCheckpoints.newest(dir.resolve("nothing-here").toString())).isEmpty();
    }
}
