package io.streamhouse.flinkcluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FlinkClusterConfigTest {

    @TempDir
    Path dir;

    private FlinkClusterConfig config() {
        return new FlinkClusterConfig(dir, 18081, 16123, 2, 2);
    }

    @Test
    void everyProcessListensOnLoopbackOnlyAndTheTaskManagersDialTheJobManagersRpcPort() {
        for (Map<String, String> c : List.of(config().jobManager(), config().taskManager(1), config().taskManager(2))) {
            assertThat(c).containsEntry("jobmanager.rpc.address", "127.0.0.1").containsEntry("jobmanager.rpc.port", "16123")
                    .containsEntry("jobmanager.bind-host", "127.0.0.1").containsEntry("rest.bind-address", "127.0.0.1")
                    .containsEntry("rest.port", "18081").containsEntry("taskmanager.bind-host", "127.0.0.1")
                    .containsEntry("taskmanager.host", "127.0.0.1");
        }
        assertThat(config().restUrl()).hasToString("http://127.0.0.1:18081");
    }

    @Test
    void eachTaskManagerHasItsOwnResourceIdAndTempDirectoryAndTheSlotsAsked() {
        assertThat(config().taskManager(1)).containsEntry("taskmanager.resource-id", "taskmanager-1")
                .containsEntry("taskmanager.numberOfTaskSlots", "2")
                .containsEntry("io.tmp.dirs", dir.resolve("taskmanager-1/tmp").toString());
        assertThat(config().taskManager(2)).containsEntry("taskmanager.resource-id", "taskmanager-2")
                .containsEntry("io.tmp.dirs", dir.resolve("taskmanager-2/tmp").toString());
        assertThat(config().totalSlots()).isEqualTo(4);
        assertThat(config().processMemoryMb()).isEqualTo(768 + 2 * 1024);
        assertThatThrownBy(() -> config().taskManager(3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void checkpointsAndSavepointsGoUnderTheClusterDirectoryAsFileUris() {
        assertThat(config().jobManager())
                .containsEntry("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString())
                .containsEntry("execution.checkpointing.savepoint-dir", dir.resolve("savepoints").toUri().toString())
                .containsEntry("state.backend.type", "rocksdb");
        assertThat(config().jobManager().get("execution.checkpointing.dir")).startsWith("file:/");
    }

    @Test
    void theTaskManagersMemoryComponentsAddUpToItsProcessSizeAndTheJvmLimitsFollowThem() {
        Map<String, String> tm = config().taskManager(1);
        long components = List.of("framework.heap.size", "task.heap.size", "framework.off-heap.size", "task.off-heap.size",
                        "network.max", "managed.size", "jvm-metaspace.size", "jvm-overhead.max").stream()
                .mapToLong(k -> mebibytes(tm.get("taskmanager.memory." + k))).sum();
        assertThat(components).isEqualTo(mebibytes(tm.get("taskmanager.memory.process.size"))).isEqualTo(1024);
        long heap = mebibytes(tm.get("taskmanager.memory.framework.heap.size")) + mebibytes(tm.get("taskmanager.memory.task.heap.size"));
        assertThat(FlinkClusterConfig.taskManagerJvm()).contains("-Xmx" + heap + "m", "-XX:MaxMetaspaceSize=192m",
                "--add-opens=java.base/java.util=ALL-UNNAMED");
        assertThat(tm).containsKey("taskmanager.cpu.cores"); // the TaskManager refuses to start without it
        assertThat(FlinkClusterConfig.jobManagerJvm())
                .contains("-Xmx" + mebibytes(config().jobManager().get("jobmanager.memory.heap.size")) + "m");
    }

    @Test
    void theYamlQuotesEveryValueSoAPathOrADurationReadsBackAsWritten() throws Exception {
        Path conf = FlinkClusterConfig.write(dir.resolve("jobmanager"), Map.of("a.path", "C:\\x \"y\"", "a.duration", "1 s"));
        String yaml = Files.readString(conf.resolve("config.yaml"));
        assertThat(yaml).contains("a.path: \"C:\\\\x \\\"y\\\"\"\n").contains("a.duration: \"1 s\"\n");
    }

    @Test
    void aClusterWithoutSlotsOrWithOnePortForTwoUsesIsRefused() {
        assertThatThrownBy(() -> new FlinkClusterConfig(dir, 1, 2, 0, 2)).hasMessageContaining("at least one TaskManager");
        assertThatThrownBy(() -> new FlinkClusterConfig(dir, 8081, 8081, 2, 2)).hasMessageContaining("two ports");
    }

    private static long mebibytes(String size) {
        assertThat(size).endsWith("m");
        return Long.parseLong(size.substring(0, size.length() - 1));
    }
}
