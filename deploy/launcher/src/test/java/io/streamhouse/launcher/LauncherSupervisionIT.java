package io.streamhouse.launcher;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.StatusFile;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The bug this supervisor fixes, as a user met it: {@code ./streamhouse up}, then {@code kill -9} of the api. The
 * launcher runs as its own JVM (as the script starts it); the kill goes through {@code ./streamhouse kill api};
 * {@code status} must show the api restarting, then running again with one restart and its last exit, readiness
 * must answer again, and {@code down} must leave nothing behind. The lake's query service ({@code sql}) is killed in the
 * same wait and must come back on the same URL, its lake maintenance scheduled.
 */
class LauncherSupervisionIT {

    @Test
    void aKilledApiIsRestartedAndStatusFollowsIt() throws Exception {
        Path data = Path.of("target", "launcher-supervision-it").toAbsolutePath();
        Files.createDirectories(data);
        Path out = data.resolveSibling("launcher-supervision-it.out");
        String dataArg = data.toString();
        Process launcher = LauncherJvm.up(data, out, "--no-demo", "--without", "cdc,cep");
        List<ProcessHandle> children = new ArrayList<>();
        try {
            children.addAll(launcher.descendants().toList());
            assertThat(Launcher.status(options("status", dataArg))).as("status exit code, all running").isZero();
            ChildStatus api = component(data, "api");
            assertThat(api.state()).isEqualTo(ChildState.RUNNING);
            assertThat(api.restarts()).isZero();
            assertThat(component(data, "broker").state()).isEqualTo(ChildState.RUNNING);
            ChildStatus sql = component(data, "sql");
            assertThat(sql.state()).as("the lake's query service is supervised").isEqualTo(ChildState.RUNNING);
            long killed = api.pid();

            assertThat(Launcher.control(options("kill", dataArg, "api"))).isZero();
            // The query service too, in the same wait: both restart side by side.
            assertThat(Launcher.control(options("kill", dataArg, "sql"))).isZero();
            assertThat(ProcessHandle.of(sql.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();

            assertThat(ProcessHandle.of(killed).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            await().atMost(Duration.ofSeconds(10)).until(() -> component(data, "api").state() == ChildState.RESTARTING);
            assertThat(Launcher.status(options("status", dataArg))).as("status exit code while the api restarts").isEqualTo(1);
            await("api running again").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                    .until(() -> component(data, "api").state() == ChildState.RUNNING);
            ChildStatus again = component(data, "api");
            assertThat(again.pid()).isNotEqualTo(killed);
            assertThat(again.restarts()).isEqualTo(1);
            assertThat(again.lastExit()).hasValueSatisfying(e -> assertThat(e.code()).isEqualTo(137));
            assertThat(again.endpoint()).isEqualTo(api.endpoint());
            HttpResponse<Void> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(again.endpoint() + "/q/health/ready")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(ready.statusCode()).isEqualTo(200);
            await("sql running again").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                    .until(() -> component(data, "sql").state() == ChildState.RUNNING);
            ChildStatus sqlAgain = component(data, "sql");
            assertThat(sqlAgain.pid()).isNotEqualTo(sql.pid());
            assertThat(sqlAgain.restarts()).isEqualTo(1);
            assertThat(sqlAgain.endpoint()).isEqualTo(sql.endpoint());
            // up maintains the lake by default: the restarted service reports its schedule.
            assertThat(Launcher.maintenanceLine(sqlAgain.endpoint())).contains("next pass at");
            assertThat(Launcher.status(options("status", dataArg))).isZero();
            children.addAll(launcher.descendants().toList());
            assertThat(Files.readString(out))
                    .contains("[supervisor] api (pid " + killed + ") died: killed by signal 9 (SIGKILL); restart 1 of 5 in 1000 ms")
                    .contains("[supervisor] api restarted (pid " + again.pid() + ", restart 1 in all)")
                    .contains("[supervisor] sql (pid " + sql.pid() + ") died: killed by signal 9 (SIGKILL)")
                    .contains("lake maintenance every PT10M");

            assertThat(Launcher.down(options("down", dataArg))).isZero();
            assertThat(launcher.isAlive()).isFalse();
            await().atMost(Duration.ofSeconds(30)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
            assertThat(Launcher.status(options("status", dataArg))).as("status exit code once down").isEqualTo(3);
        } finally {
            // Only if an assertion failed: never leave the launcher or what it started behind (by PID). The children
            // exit by themselves once the launcher is gone (the PostgreSQL watchdog must not be killed: it is what
            // stops the postmaster); what is still alive after that is killed.
            children.addAll(launcher.descendants().toList());
            launcher.destroyForcibly();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
            } finally {
                children.forEach(ProcessHandle::destroyForcibly);
            }
        }
    }

    private static LaunchOptions options(String... args) {
        List<String> all = new ArrayList<>(List.of(args[0]));
        if (args.length > 2) {
            all.add(args[2]);
        }
        all.addAll(List.of("--data", args[1]));
        return LaunchOptions.parse(all.toArray(String[]::new));
    }

    private static ChildStatus component(Path data, String name) {
        Optional<StatusFile.Snapshot> snapshot = StatusFile.read(data.resolve(StatusFile.NAME));
        return snapshot.orElseThrow().components().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }
}
