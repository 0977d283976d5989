package io.streamhouse.lakequery;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The query service's port is chosen before its JVM starts (the apps are given its URL at once). Taken by the time the
 * service binds it, the service exits with 1 and says which port, before starting anything; it does not stay alive
 * without a server until the launcher's start timeout.
 */
class LakeQueryPortInUseIT {

    @Test
    void aTakenPortEndsTheServiceAtOnceWithTheReason(@TempDir Path dir) throws Exception {
        try (var taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            var launch = LakeQueryProcess.launch(LakeQueryOptions.of(dir, "127.0.0.1:1", "http://127.0.0.1:1", Optional.empty()),
                    taken.getLocalPort());
            Path out = dir.resolve("service.out");
            ProcessBuilder builder = new ProcessBuilder(launch.command()).directory(launch.workingDir().toFile())
                    .redirectErrorStream(true).redirectOutput(out.toFile());
            builder.environment().putAll(launch.environment());
            Process service = builder.start();
            try {
                boolean exited = service.waitFor(60, TimeUnit.SECONDS);
                String said = Files.readString(out, StandardCharsets.UTF_8);
                assertThat(exited).as("exited; it said:%n%s", said).isTrue();
                assertThat(service.exitValue()).as(said).isEqualTo(1);
                assertThat(said).contains("port " + taken.getLocalPort() + " is in use").doesNotContain(LakeQueryMain.READY_PREFIX);
            } finally {
                service.destroyForcibly();
            }
        }
    }
}
