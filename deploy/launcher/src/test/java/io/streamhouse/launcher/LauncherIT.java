package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./streamhouse up} as a user runs it, end to end: platform, both apps as child JVMs, the demo load through
 * HTTP, every decision read back and checked against the demo's ground truth — then everything stopped, with no
 * process left behind.
 */
class LauncherIT {

    @Test
    void upRunsTheSliceAndStopsEverything() throws Exception {
        Path data = Path.of("target", "launcher-it").toAbsolutePath();
        var options = LaunchOptions.parse(new String[]{"up", "--data", data.toString(), "--fresh", "--exit-after-demo",
                "--demo", "30", "--seed", "7", "--kafka-port", "0", "--registry-port", "0", "--ingest-port", "0", "--api-port", "0"});
        List<ProcessHandle> before = ProcessHandle.current().children().toList();

        int code = Launcher.up(options);

        assertThat(code).as("exit code of up (0: every demo decision matched the ground truth)").isZero();
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> !before.contains(p)).toList()).as("children left behind").isEmpty();
        assertThat(PidFile.running(data)).isEmpty();
    }
}
