package io.streamhouse.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class StatusFileTest {

    @Test
    void readsBackWhatItWroteAndReplacesTheFileWhole(@TempDir Path dir) {
        Path file = dir.resolve(StatusFile.NAME);
        Instant t = Instant.parse("2026-12-02T01:02:03.456Z");
        var snapshot = new StatusFile.Snapshot(42, t, List.of(
                new ChildStatus("broker", ChildState.RUNNING, 100, 0, Optional.empty(), "127.0.0.1:9092", t),
                new ChildStatus("api", ChildState.RESTARTING, 101, 3, Optional.of(new ExitInfo(137, t.plusSeconds(1))),
                        "http://127.0.0.1:8082", t.plusSeconds(2)),
                new ChildStatus("odd \"name\"", ChildState.FAILED, 0, 5, Optional.of(new ExitInfo(1, t)), "", t)));

        StatusFile.write(file, snapshot);
        assertThat(StatusFile.read(file)).contains(snapshot);
        assertThat(StatusFile.read(dir.resolve("none.json"))).isEmpty();

        var next = new StatusFile.Snapshot(42, t.plusSeconds(5), List.of(snapshot.components().get(0)));
        StatusFile.write(file, next);
        assertThat(StatusFile.read(file)).contains(next);
        assertThat(dir.resolve(StatusFile.NAME + ".tmp")).doesNotExist();
        assertThat(file).content().contains("\"broker\"").doesNotContain("\"lastExit\"").doesNotContain("restarting");
    }

    @Test
    void readsBackTheHealthChecksWithTheComponents(@TempDir Path dir) {
        Path file = dir.resolve(StatusFile.NAME);
        Instant t = Instant.parse("2026-12-02T01:02:03.456Z");
        var snapshot = new StatusFile.Snapshot(42, t,
                List.of(new ChildStatus("cep", ChildState.RUNNING, 100, 0, Optional.empty(), "j1 http://127.0.0.1:1", t)),
                List.of(new HealthCheck("cep job", "cep", HealthCheck.Verdict.FAILING,
                                "RESTARTING, 5 restarts in the last minute, last cause: InvalidTimestampException: \"x\" \\ y"),
                        new HealthCheck("connect lake", "connect", HealthCheck.Verdict.OK, "RUNNING, 1 task RUNNING")));

        StatusFile.write(file, snapshot);

        assertThat(StatusFile.read(file)).contains(snapshot);
        assertThat(file).content().contains("\"verdict\": \"failing\"");
    }

    @Test
    void readsBackTheDetailsAsTheJsonTheyWereGiven(@TempDir Path dir) {
        Path file = dir.resolve(StatusFile.NAME);
        Instant t = Instant.parse("2026-12-02T01:02:03.456Z");
        var details = new java.util.LinkedHashMap<String, String>();
        details.put("lag", "[{\"processor\":\"cep\",\"group\":\"streamhouse-cep\",\"records\":3,\"seconds\":1.5}]");
        details.put("maintenance", "{\"lastPassAt\":null,\"ok\":null,\"unknown\":\"no pass yet, {\\\"x\\\"}\"}");
        var snapshot = new StatusFile.Snapshot(42, t,
                List.of(new ChildStatus("cep", ChildState.RUNNING, 100, 0, Optional.empty(), "", t)),
                List.of(new HealthCheck("cep lag", "cep", HealthCheck.Verdict.OK, "cep lag: 3 records")), details);

        StatusFile.write(file, snapshot);

        assertThat(StatusFile.read(file)).contains(snapshot);
        assertThat(StatusFile.read(file).orElseThrow().details().keySet()).containsExactly("lag", "maintenance");
        assertThat(file).content().contains("\"lag\": [{\"processor\":\"cep\"").endsWith("}\n}\n");
    }

    @Test
    void refusesADetailThatIsNotOneLineOfJson() {
        Instant t = Instant.EPOCH;
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StatusFile.Snapshot(1, t, List.of(), List.of(),
                java.util.Map.of("lag", "3 records"))).isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StatusFile.Snapshot(1, t, List.of(), List.of(),
                java.util.Map.of("checks", "[]"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void exitDescriptionsNameTheSignal() {
        assertThat(new ExitInfo(137, Instant.EPOCH).describe()).isEqualTo("killed by signal 9 (SIGKILL)");
        assertThat(new ExitInfo(143, Instant.EPOCH).describe()).isEqualTo("killed by signal 15 (SIGTERM)");
        assertThat(new ExitInfo(1, Instant.EPOCH).describe()).isEqualTo("exit code 1");
        assertThat(Files.exists(Path.of("."))).isTrue();
    }
}
