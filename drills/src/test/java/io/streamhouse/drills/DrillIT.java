package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.StatusFile;
import io.streamhouse.replay.CepShadow;
import io.streamhouse.replay.Records;
import io.streamhouse.replay.ReplayCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each of the five {@code replay drill} scenarios once, shortened (6 s of load, the fault after 2 s), against one
 * stack: the launcher in its own JVM as {@code ./streamhouse up} runs it, with the lake and the CEP job, without CDC
 * and the query service, which no drill needs. Each scenario asserts the drill's own checks (every authorize decided
 * exactly once and never two outcomes, every accepted telemetry reading and scan on its topic once, no alert id twice,
 * projections and alerts equal a fresh rebuild, Iceberg equals Kafka) and that a recovery was observed: the faulted
 * component back in a new process and the lag of the groups it feeds back under the bound. Recovery times are printed,
 * never asserted. {@code restart-broker} runs last: a CEP divergence it causes stays on the log and would fail the
 * rebuild of every later drill on this stack (docs/drills.md).
 *
 * <p>Tagged {@code drills} and left out of the suite: its one complete run took 857 s at load 19-30, far beyond the
 * suite's budget (each drill rebuilds everything and audits the lake). Run it with
 * {@code ./mvnw -B -pl replay -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=DrillIT
 * -Dstreamhouse.it.excludedGroups=docker}.
 */
@Tag("drills")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DrillIT {
    private static final int RATE = 10, ASYNC_RATE = 10, DURATION = 6, FAULT_AFTER = 2;

    private static Path data;
    private static Path out;
    private static Process launcher;
    private static String ingest, api;
    private static final List<ProcessHandle> children = new ArrayList<>();

    @BeforeAll
    static void up() throws Exception {
        data = Path.of("target", "drill-it").toAbsolutePath();
        Files.createDirectories(data);
        out = data.resolveSibling("drill-it.out");
        ProcessBuilder up = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-Dstreamhouse.home=" + CepShadow.home(), "io.streamhouse.launcher.Launcher", "up",
                "--data", data.toString(), "--fresh", "--no-demo", "--without", "cdc,sql",
                "--kafka-port", "0", "--registry-port", "0", "--ingest-port", "0", "--api-port", "0"))
                .redirectErrorStream(true).redirectOutput(out.toFile());
        // Through the environment, not -cp: the pid file recognises the launcher by its main class on its command line.
        up.environment().put("CLASSPATH", System.getProperty("java.class.path"));
        launcher = up.start();
        await("stack ready (see " + out + ")").atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    assertThat(launcher.isAlive()).as("launcher alive; its output: " + out).isTrue();
                    return Files.readString(out).contains("Streamhouse is ready");
                });
        children.addAll(launcher.descendants().toList());
        ingest = component("ingest").endpoint();
        api = component("api").endpoint();
        for (String c : List.of("broker", "connect", "cep", "ingest", "api")) {
            assertThat(component(c).state()).as(c).isEqualTo(ChildState.RUNNING);
        }
    }

    @AfterAll
    static void down() throws Exception {
        if (launcher == null) {
            return;
        }
        children.addAll(launcher.descendants().toList());
        launcher.destroy(); // what ./streamhouse down does: the launcher stops its children in order
        try {
            if (!launcher.waitFor(90, java.util.concurrent.TimeUnit.SECONDS)) {
                launcher.destroyForcibly();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            children.forEach(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    @Order(1)
    void killApi() throws Exception {
        drill("kill-api", "api", 101);
    }

    @Test
    @Order(2)
    void wipeApiState() throws Exception {
        JsonNode report = drill("wipe-api-state", "api", 102);
        JsonNode restore = report.get("restore");
        assertThat(restore.get("changelogRecords").asLong()).as("the wiped stores' changelogs, restored: " + restore).isPositive();
        assertThat(restore.get("startReadyMs").asLong()).as("the start until ready, answered by the launcher").isPositive();
        JsonNode streams = restore.get("restore");
        assertThat(streams.get("apps").size()).as("both applications' restore, read from the api's log: " + restore).isEqualTo(2);
        assertThat(streams.get("records").asLong()).as("records Streams restored after the wipe: " + restore).isPositive();
        assertThat(restore.get("ratio").isNumber()).as("the restore against ConsumerPerformance: " + restore).isTrue();
    }

    @Test
    @Order(3)
    void killConnect() throws Exception {
        drill("kill-connect", "connect", 103);
    }

    @Test
    @Order(4)
    void killCep() throws Exception {
        JsonNode cep = drill("kill-cep", "cep", 104).get("cep");
        assertThat(cep.get("resumedFrom").isTextual()).as("the restarted job resumed from a checkpoint: " + cep).isTrue();
        assertThat(cep.get("passed").asBoolean()).as("resumed from the newest retained at the kill: " + cep).isTrue();
    }

    @Test
    @Order(5)
    void restartBroker() throws Exception {
        drill("restart-broker", "broker", 105);
    }

    /** Runs one drill as {@code ./streamhouse drill} does, asserts its checks and its recovery, and returns its report. */
    private static JsonNode drill(String scenario, String component, long seed) throws Exception {
        ChildStatus before = component(component);
        long began = System.nanoTime();
        var stdout = new ByteArrayOutputStream();
        var stderr = new ByteArrayOutputStream();
        int exit = DrillsCli.run(new String[]{"drill", scenario, "--data", data.toString(), "--ingest-url", ingest, "--api-url", api,
                "--rate", Integer.toString(RATE), "--async-rate", Integer.toString(ASYNC_RATE), "--duration", Integer.toString(DURATION),
                "--fault-after", Integer.toString(FAULT_AFTER), "--seed", Long.toString(seed), "--recovery-timeout", "120",
                "--kafka-tools", CepShadow.home().resolve("load-tests/target").toString(), "--json"},
                new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        String log = stderr.toString(StandardCharsets.UTF_8) + stdout.toString(StandardCharsets.UTF_8);
        assertThat(stdout.toString(StandardCharsets.UTF_8)).as("a JSON report; the drill's output: " + log).startsWith("{");
        JsonNode r = Records.JSON.readTree(stdout.toString(StandardCharsets.UTF_8));
        JsonNode v = r.get("recovery");
        System.out.printf(Locale.ROOT, "DrillIT %s: %s in %.1f s; %s serving again after %s ms, lag of %s under %s after %s ms; "
                        + "decisions %s; rebuild %s; lake equal %s; load average %s%n", scenario, r.get("result").asText(), tookMs / 1000.0,
                component, v.get("componentBackAfterMs"), v.get("lagGroups"), v.get("lagBound"), v.get("lagNormalAfterMs"),
                r.get("decisions").get("decided") + " decided / " + r.get("decisions").get("fallbacks") + " fallbacks / "
                        + r.get("decisions").get("refused") + " refused",
                r.get("rebuild").get("result").asText(), r.get("lake").get("equal"), r.get("loadAverage").asText());

        // The fault happened, and the component recovered from it (how fast is printed, not asserted).
        assertThat(v.get("faultAnswers")).as("the launcher answered the fault: " + log).isNotEmpty();
        assertThat(v.get("componentBackAfterMs").isNumber()).as(component + " serving again: " + log).isTrue();
        assertThat(v.get("lagNormalAfterMs").isNumber()).as("the lag of " + v.get("lagGroups") + " back under the bound: " + log).isTrue();
        ChildStatus after = component(component);
        assertThat(after.state()).as(component + " after the drill").isEqualTo(ChildState.RUNNING);
        assertThat(after.pid()).as(component + " runs in a new process").isNotEqualTo(before.pid());

        // The drill's checks, one by one, so a failure names the one that failed.
        JsonNode d = r.get("decisions");
        assertThat(d.get("sent").asLong()).isEqualTo((long) RATE * DURATION);
        assertThat(d.get("requestErrors").asLong()).as("authorizes with neither a decision nor a 503 refusal: " + d).isZero();
        assertThat(d.get("lost").asLong()).as("authorizes with no decision on the log: " + d).isZero();
        assertThat(d.get("conflicting").asLong()).as("transactions with two different outcomes: " + d).isZero();
        assertThat(d.get("answerMismatches").asLong()).as("decided answers unlike the log: " + d).isZero();
        JsonNode a = r.get("async");
        assertThat(a.get("accepted").asLong()).as("telemetry and scans accepted: " + a).isPositive();
        assertThat(a.get("lost").asLong()).as("accepted telemetry and scans not on their topic: " + a).isZero();
        assertThat(a.get("duplicated").asLong()).as("telemetry and scans on their topic twice: " + a).isZero();
        assertThat(a.get("refused").asLong()).as("telemetry and scans refused: " + a).isZero();
        assertThat(r.get("repeatedAlertIds")).as("alert ids written more than once").isEmpty();
        JsonNode rebuild = r.get("rebuild");
        assertThat(rebuild.get("result").asText()).as("live against a fresh rebuild of decisions, serving and cep: " + rebuild)
                .isEqualTo("EQUAL");
        assertThat(rebuild.get("divergences").asLong()).isZero();
        JsonNode lake = r.get("lake");
        assertThat(lake.get("ran").asBoolean()).as("the lake runs on this stack: " + lake).isTrue();
        assertThat(lake.get("tables")).as("landed tables audited").isNotEmpty();
        assertThat(lake.get("equal").asBoolean()).as("Iceberg equals Kafka: " + lake).isTrue();
        assertThat(r.get("failures")).as("the drill's own verdict").isEmpty();
        assertThat(r.get("result").asText()).isEqualTo("PASS");
        assertThat(exit).isEqualTo(ReplayCli.EQUAL);
        return r;
    }

    private static ChildStatus component(String name) {
        return StatusFile.read(data.resolve(StatusFile.NAME)).orElseThrow().components().stream()
                .filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + data.resolve(StatusFile.NAME)));
    }
}
