package io.streamhouse.launcher;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.StatusFile;
import io.streamhouse.loadtests.generator.GeneratorCli;
import io.streamhouse.loadtests.score.ScoreCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The stack as a user runs it: {@code ./streamhouse up --fresh --no-demo} with the launcher in its own JVM (as the
 * script starts it), CEP job, lake and query service on, CDC off (nothing here uses it). On that one stack, in order:
 * <ol>
 *   <li>the README's path to the CEP job's alerts: {@code ./streamhouse generate --events N --seed S} and
 *   {@code ./streamhouse score} with the script's command lines ({@code --target kafka} added to the generator's) and
 *   their defaults. Score's exit code 0 means every planted anomaly alerted and nothing else (recall 100 %, precision
 *   at least 99.5 % per pattern), read read_committed with Kafka's own consumer. Fewer events than the README's
 *   20,000;</li>
 *   <li>supervision: {@code ./streamhouse kill api} and {@code kill sql}; {@code status} shows the api restarting,
 *   then running again with one restart and its last exit, readiness answers again, the query service comes back on
 *   the same URL with its lake maintenance scheduled;</li>
 *   <li>{@code down} leaves nothing behind and {@code status} then says so.</li>
 * </ol>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LauncherJvmIT {

    private static final Path DATA = Path.of("target", "launcher-jvm-it").toAbsolutePath();
    private static final Path OUT = DATA.resolveSibling("launcher-jvm-it.out");
    private static final String DATA_ARG = DATA.toString();

    private static Process launcher;
    private static final List<ProcessHandle> CHILDREN = new ArrayList<>();

    @BeforeAll
    static void up() throws Exception {
        Files.createDirectories(DATA);
        launcher = LauncherJvm.up(DATA, OUT, "--no-demo", "--without", "cdc");
        CHILDREN.addAll(launcher.descendants().toList());
    }

    @AfterAll
    static void leaveNothingBehind() throws Exception {
        if (launcher == null) {
            return;
        }
        // Only if a test failed before down: never leave the launcher or what it started behind (by PID). The children
        // exit by themselves once the launcher is gone (the PostgreSQL watchdog must not be killed: it is what stops
        // the postmaster); what is still alive after that is killed.
        CHILDREN.addAll(launcher.descendants().toList());
        launcher.destroyForcibly();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> CHILDREN.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            CHILDREN.forEach(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    @Order(1)
    void theReadmesGenerateAndScoreFindEveryPlantedAnomaly() throws Exception {
        Path truth = DATA.resolveSibling("launcher-jvm-it-gen");
        Output generated = new Output();
        int generate = GeneratorCli.run(new String[]{"--target", "kafka", "--events", "4000", "--seed", "11",
                "--data", DATA_ARG, "--out", truth.toString(), "--no-progress"}, generated.out, generated.out);
        System.out.print(generated);
        assertThat(generate).as("generate's exit code; its output:%n%s", generated).isZero();
        assertThat(generated.toString()).contains("Sent 4,000 to kafka");

        Output scored = new Output();
        int score = ScoreCli.run(new String[]{"--data", DATA_ARG, "--truth", truth.toString()}, scored.out, scored.out);
        System.out.print(scored);
        assertThat(score).as("score's exit code (0: every pattern 100 %% recall, >= 99.5 %% precision); its output:%n%s",
                scored).isZero();
        assertThat(scored.toString()).contains("PASS").doesNotContain("  missed ").doesNotContain("  extra ")
                .containsPattern("card testing +[1-9]");
    }

    @Test
    @Order(2)
    void aKilledApiIsRestartedAndStatusFollowsIt() throws Exception {
        assertThat(Launcher.status(options("status", DATA_ARG))).as("status exit code, all running").isZero();
        ChildStatus api = component("api");
        assertThat(api.state()).isEqualTo(ChildState.RUNNING);
        assertThat(api.restarts()).isZero();
        assertThat(component("broker").state()).isEqualTo(ChildState.RUNNING);
        ChildStatus sql = component("sql");
        assertThat(sql.state()).as("the lake's query service is supervised").isEqualTo(ChildState.RUNNING);
        long killed = api.pid();

        assertThat(Launcher.control(options("kill", DATA_ARG, "api"))).isZero();
        // The query service too, in the same wait: both restart side by side.
        assertThat(Launcher.control(options("kill", DATA_ARG, "sql"))).isZero();
        assertThat(ProcessHandle.of(sql.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();

        assertThat(ProcessHandle.of(killed).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> component("api").state() == ChildState.RESTARTING);
        assertThat(Launcher.status(options("status", DATA_ARG))).as("status exit code while the api restarts").isEqualTo(1);
        await("api running again").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                .until(() -> component("api").state() == ChildState.RUNNING);
        ChildStatus again = component("api");
        assertThat(again.pid()).isNotEqualTo(killed);
        assertThat(again.restarts()).isEqualTo(1);
        assertThat(again.lastExit()).hasValueSatisfying(e -> assertThat(e.code()).isEqualTo(137));
        assertThat(again.endpoint()).isEqualTo(api.endpoint());
        HttpResponse<Void> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(again.endpoint() + "/q/health/ready")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
        assertThat(ready.statusCode()).isEqualTo(200);
        await("sql running again").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                .until(() -> component("sql").state() == ChildState.RUNNING);
        ChildStatus sqlAgain = component("sql");
        assertThat(sqlAgain.pid()).isNotEqualTo(sql.pid());
        assertThat(sqlAgain.restarts()).isEqualTo(1);
        assertThat(sqlAgain.endpoint()).isEqualTo(sql.endpoint());
        // up maintains the lake by default: the restarted service reports its schedule.
        assertThat(Launcher.maintenanceLine(sqlAgain.endpoint())).contains("next pass at");
        assertThat(Launcher.status(options("status", DATA_ARG))).isZero();
        assertThat(Files.readString(OUT))
                .contains("[supervisor] api (pid " + killed + ") died: killed by signal 9 (SIGKILL); restart 1 of 5 in 1000 ms")
                .contains("[supervisor] api restarted (pid " + again.pid() + ", restart 1 in all)")
                .contains("[supervisor] sql (pid " + sql.pid() + ") died: killed by signal 9 (SIGKILL)")
                .contains("lake maintenance every PT10M");
    }

    @Test
    @Order(3)
    void downLeavesNothingBehind() throws Exception {
        CHILDREN.addAll(launcher.descendants().toList());
        assertThat(Launcher.down(options("down", DATA_ARG))).isZero();
        assertThat(launcher.isAlive()).isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> CHILDREN.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(Launcher.status(options("status", DATA_ARG))).as("status exit code once down").isEqualTo(3);
    }

    private static LaunchOptions options(String... args) {
        List<String> all = new ArrayList<>(List.of(args[0]));
        if (args.length > 2) {
            all.add(args[2]);
        }
        all.addAll(List.of("--data", args[1]));
        return LaunchOptions.parse(all.toArray(String[]::new));
    }

    private static ChildStatus component(String name) {
        Optional<StatusFile.Snapshot> snapshot = StatusFile.read(DATA.resolve(StatusFile.NAME));
        return snapshot.orElseThrow().components().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** A command's standard output and error, together. */
    private static final class Output {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        @Override
        public String toString() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
