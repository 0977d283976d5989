package io.streamhouse.launcher;

import io.streamhouse.supervisor.ChildStartException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class PreflightTest {

    @Test
    void aFixedPortSomeoneElseListensOnIsNamedWithItsComponentAndOption() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            var options = LaunchOptions.parse(new String[]{"up", "--kafka-port", "0", "--registry-port", "0", "--ingest-port", "0",
                    "--api-port", Integer.toString(port)});
            assertThat(Preflight.portsInUse(options)).containsExactly("Port " + port
                    + " (api) is in use by another process: stop it, or start with --api-port P (0 picks a free port).");
        }
    }

    @Test
    void freePortsAndPortsPickedFreePass() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        var options = LaunchOptions.parse(new String[]{"up", "--kafka-port", "0", "--registry-port", "0", "--ingest-port",
                Integer.toString(port), "--api-port", "0", "--api-instances", "3"});
        assertThat(Preflight.portsInUse(options)).isEmpty();
    }

    @Test
    void aComponentThatDidNotStartIsOneLineWithItsLogNotItsTail() {
        var failed = new ChildStartException("api closed stdout before it was ready (exit 1); pid 4242 killed. Last lines of "
                + "/data/logs/api.log:\nERROR something\n\tat io.quarkus.Some.frame(Some.java:1)", null);
        String line = Preflight.startFailure(failed, Path.of("/data/logs"));
        assertThat(line).isEqualTo("Streamhouse failed to start: api closed stdout before it was ready (exit 1); pid 4242 killed;"
                + " its log: /data/logs/api.log (logs: /data/logs)");
        assertThat(line.lines()).hasSize(1);
        assertThat(Preflight.startFailure(new IllegalStateException("cep did not become ready within 90 s"), Path.of("/d/logs")))
                .isEqualTo("Streamhouse failed to start: cep did not become ready within 90 s (logs: /d/logs)");
    }
}
