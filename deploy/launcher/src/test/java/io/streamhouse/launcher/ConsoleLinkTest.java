package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ConsoleLinkTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private boolean running;

    private int run(Path home, String... args) {
        return ConsoleLink.run(args, home, data -> running, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aRunningStackGivesALinkWithTheRolesTokenInItsFragment(@TempDir Path home) throws Exception {
        Path data = home.resolve(".streamhouse");
        Files.createDirectories(data.resolve("tokens"));
        Files.writeString(data.resolve("tokens/ops.jwt"), "aaa.bbb.ccc\n");
        Files.writeString(data.resolve("endpoints.properties"), "api.url=http\\://127.0.0.1\\:18082\n");
        running = true;
        assertThat(run(home, "console", "--role", "ops")).isEqualTo(0);
        assertThat(out.toString(StandardCharsets.UTF_8).lines().findFirst())
                .hasValue("http://127.0.0.1:18082/console/#token=aaa.bbb.ccc");
    }

    @Test
    void noStackOrAnUnknownRoleIsOneLineAndNoLink(@TempDir Path home) {
        assertThat(run(home, "console")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("Streamhouse is not running").hasLineCount(1);
        err.reset();
        assertThat(run(home, "console", "--role", "internal")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--role must be one of").hasLineCount(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
