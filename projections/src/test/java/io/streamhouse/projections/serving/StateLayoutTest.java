package io.streamhouse.projections.serving;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** When an instance may keep its local serving state, and when it must rebuild it from the changelogs. */
class StateLayoutTest {
    private static final String APP = "streamhouse-serving";
    private final String oneMinute = StateLayout.of(new ServingTopology.Config(Duration.ofDays(7), Duration.ofMinutes(1)));
    private final String oneHour = StateLayout.of(new ServingTopology.Config(Duration.ofDays(7), Duration.ofHours(1)));

    @TempDir
    Path dir;

    @Test
    void aNewStateDirectoryIsUsedAsItIs() throws Exception {
        assertThat(StateLayout.mismatch(dir, APP, oneMinute)).isNull();
        assertThat(StateLayout.mismatch(dir.resolve("not-there-yet"), APP, oneMinute)).isNull();
    }

    @Test
    void theSameLayoutKeepsTheState() throws Exception {
        Files.createDirectories(dir.resolve(APP).resolve("0_0"));
        StateLayout.record(dir, oneMinute);
        assertThat(StateLayout.mismatch(dir, APP, oneMinute)).isNull();
    }

    @Test
    void anotherSegmentIntervalMustRebuild() throws Exception {
        Files.createDirectories(dir.resolve(APP).resolve("0_0"));
        StateLayout.record(dir, oneHour);
        assertThat(StateLayout.mismatch(dir, APP, oneMinute)).contains("3600000").contains("60000");
    }

    @Test
    void stateWrittenBeforeTheLayoutWasRecordedMustRebuild() throws Exception {
        Files.createDirectories(dir.resolve(APP).resolve("0_0"));
        assertThat(StateLayout.mismatch(dir, APP, oneMinute)).contains("predates");
        Files.delete(dir.resolve(APP).resolve("0_0"));
        assertThat(StateLayout.mismatch(dir, APP, oneMinute)).as("an empty application directory holds nothing").isNull();
    }

    @Test
    void recordingReplacesTheFormerLayout() throws Exception {
        StateLayout.record(dir, oneHour);
        StateLayout.record(dir, oneMinute);
        assertThat(Files.readString(dir.resolve(StateLayout.FILE))).isEqualTo(oneMinute);
    }
}
