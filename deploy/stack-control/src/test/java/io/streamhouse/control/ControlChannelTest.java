package io.streamhouse.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ControlChannelTest {

    @Test
    void aRequestReachesTheHandlerAndItsAnswerComesBack(@TempDir Path data) throws Exception {
        Path dir = data.resolve(ControlChannel.DIR);
        List<ControlChannel.Request> seen = new CopyOnWriteArrayList<>();
        try (ControlChannel ignored = ControlChannel.serve(dir, r -> {
            seen.add(r);
            if (!r.component().equals("api")) {
                throw new IllegalArgumentException("unknown component " + r.component());
            }
            return r.action() + "ed " + r.component();
        })) {
            assertThat(ControlChannel.send(dir, new ControlChannel.Request("kill", "api"), Duration.ofSeconds(10)))
                    .isEqualTo(new ControlChannel.Response(true, "killed api"));
            assertThat(ControlChannel.send(dir, new ControlChannel.Request("kill", "apj"), Duration.ofSeconds(10)))
                    .isEqualTo(new ControlChannel.Response(false, "unknown component apj"));
        }
        assertThat(seen).containsExactly(new ControlChannel.Request("kill", "api"), new ControlChannel.Request("kill", "apj"));
        assertThat(Files.getPosixFilePermissions(dir)).hasSize(3);
        try (var left = Files.list(dir)) {
            assertThat(left.toList()).as("requests and answers are removed").isEmpty();
        }
    }

    @Test
    void noLauncherMeansAClearTimeout(@TempDir Path data) throws Exception {
        Path dir = Files.createDirectories(data.resolve(ControlChannel.DIR));
        assertThatThrownBy(() -> ControlChannel.send(dir, new ControlChannel.Request("kill", "api"), Duration.ofMillis(300)))
                .hasMessage("the launcher did not answer 'kill api' within 0 s");
        assertThatThrownBy(() -> ControlChannel.send(data.resolve("nothing"), new ControlChannel.Request("kill", "api"), Duration.ofMillis(300)))
                .hasMessageContaining("is the launcher running with this data directory?");
    }
}
