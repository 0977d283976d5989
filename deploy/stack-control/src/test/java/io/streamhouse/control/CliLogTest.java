package io.streamhouse.control;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class CliLogTest {
    private PrintStream saved;
    private final ByteArrayOutputStream terminal = new ByteArrayOutputStream();

    @BeforeEach
    void captureTheTerminal() {
        saved = System.err;
        System.setErr(new PrintStream(terminal, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(saved);
    }

    @Test
    void libraryLinesGoToTheToolsLogAndOneLineCountsTheWarningsAndErrors(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("stack");
        CliLog log = CliLog.start("replay", new String[]{"rebuild", "all", "--data", data.toString()}, dir.resolve("default"));

        System.err.println("12:00:00.000 [main] WARN org.apache.kafka.streams.processor.internals.StateDirectory - could not delete");
        System.err.println("[kafka-producer-network-thread | p] WARN org.apache.kafka.clients.NetworkClient - disconnected");
        System.err.println("Dec 05, 2026 5:46:04 PM io.streamhouse.supervisor.Supervisor stop");
        System.err.println("WARNING: broker stopped late");
        System.err.println("[main] ERROR org.apache.kafka.streams.KafkaStreams - failed");
        System.err.println("[main] INFO org.apache.kafka.clients.Metadata - cluster id");
        log.terminal().println("replay: the tool's own line");

        Path file = data.resolve("logs").resolve("replay.log");
        assertThat(log.file()).contains(file);
        assertThat(Files.readAllLines(file)).hasSize(6).last().asString().contains("INFO");
        assertThat(log.warnings()).isEqualTo(3);
        assertThat(log.errors()).isEqualTo(1);
        assertThat(log.summary()).contains("library 3 warnings and 1 error in " + file + " (--verbose shows them here)");
        log.printSummary();
        assertThat(terminal.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly("replay: the tool's own line",
                "library 3 warnings and 1 error in " + file + " (--verbose shows them here)");
    }

    @Test
    void javaUtilLoggingsConsoleHandlerMadeBeforeTheMoveWritesToTheLogToo(@TempDir Path dir) throws Exception {
        java.util.logging.Logger root = java.util.logging.LogManager.getLogManager().getLogger("");
        var before = java.util.List.of(root.getHandlers());
        try {
            java.util.logging.ConsoleHandler early = new java.util.logging.ConsoleHandler(); // on the terminal's stream
            for (var h : before) {
                root.removeHandler(h);
            }
            root.addHandler(early);
            CliLog log = CliLog.start("launcher", dir, false);
            System.getLogger("io.streamhouse.supervisor.Supervisor").log(System.Logger.Level.WARNING, "broker stopped late");
            for (var h : root.getHandlers()) {
                h.flush();
            }
            assertThat(terminal.toString(StandardCharsets.UTF_8)).doesNotContain("broker stopped late");
            assertThat(Files.readString(dir.resolve("logs").resolve("launcher.log"))).contains("WARNING: broker stopped late");
            assertThat(log.warnings()).isEqualTo(1);
        } finally {
            for (var h : root.getHandlers()) {
                root.removeHandler(h);
            }
            before.forEach(root::addHandler);
        }
    }

    @Test
    void verboseLeavesLibraryLinesOnTheTerminal(@TempDir Path dir) {
        CliLog log = CliLog.start("drill", new String[]{"drill", "burst", "--verbose"}, dir);
        System.err.println("[main] WARN org.apache.kafka.clients.NetworkClient - disconnected");

        assertThat(terminal.toString(StandardCharsets.UTF_8)).contains("WARN org.apache.kafka");
        assertThat(log.file()).isEmpty();
        assertThat(log.summary()).isEmpty();
        assertThat(dir.resolve("logs")).doesNotExist();
    }

    @Test
    void noWarningsNoSummaryAndTheDataDirectoryFromEitherSpelling(@TempDir Path dir) {
        CliLog log = CliLog.start("generate", new String[]{"--data=" + dir.resolve("d"), "--events", "10"}, dir.resolve("default"));
        System.err.println("[main] INFO io.streamhouse - fine");
        assertThat(log.file()).contains(dir.resolve("d").resolve("logs").resolve("generate.log"));
        assertThat(log.summary()).isEmpty();
        assertThat(CliLog.dataDir(new String[]{"up"}, Path.of(".streamhouse"))).isEqualTo(Path.of(".streamhouse"));
    }
}
