package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterPlanTest {

    @Test
    void clusterAsksForThreeBrokersASessionClusterOfTwoTaskManagersAndTwoOfEachApp() {
        LaunchOptions options = LaunchOptions.parse(new String[]{"up", "--cluster"});

        assertThat(options.plan()).isEqualTo(new ClusterPlan(3, 2, 2, 2, 2));
        assertThat(options.plan().sessionCluster()).isTrue();
        assertThat(options.apiInstances()).isEqualTo(2);
        assertThat(options.ingestInstances()).isEqualTo(2);
    }

    @Test
    void aCountGivenBesideClusterWinsWhereverItStands() {
        assertThat(LaunchOptions.parse(new String[]{"up", "--task-managers", "1", "--cluster", "--api-instances", "3"}).plan())
                .isEqualTo(new ClusterPlan(3, 1, 2, 3, 2));
        assertThat(LaunchOptions.parse(new String[]{"up"}).plan()).isEqualTo(ClusterPlan.single());
        assertThat(LaunchOptions.parse(new String[]{"up", "--brokers", "3"}).plan()).isEqualTo(new ClusterPlan(3, 0, 1, 1, 1));
    }

    @Test
    void countsOutsideWhatOneMachineRunsAreRefusedWithTheOption() {
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--brokers", "2"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--brokers takes 1 or 3, not 2");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--brokers", "5"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--brokers must be between 1 and 3, not 5");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--task-managers", "-1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--task-managers must be between 0 and 3, not -1");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--connect-workers", "0"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--connect-workers must be between 1 and 3, not 0");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--cluster", "--api-instances", "4"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--api-instances must be between 1 and 3, not 4");
    }

    @Test
    void aPlanLargerThanTheMemoryAvailableIsRefusedNamingEachProcessAndTheShortfall() {
        ClusterPlan cluster = ClusterPlan.CLUSTER;
        // 3 × 448 + 768 + 2 × 1024 + 2 × 512 + 2 × 896 + 2 × 384 + 1024 + 384 + 192
        long needed = 9_344;

        assertThat(cluster.refusal(true, true, true, OptionalLong.of(needed))).isEmpty();
        assertThat(cluster.refusal(true, true, true, OptionalLong.of(needed - 1))).hasValueSatisfying(reason -> assertThat(reason)
                .startsWith("Not starting: 3 brokers, a Flink session cluster with 2 TaskManagers, 2 Connect workers, 2 api"
                        + " instances and 2 ingest instances needs about 9344 MiB of memory")
                .contains("3 Kafka brokers 1344 MiB", "Flink JobManager 768 MiB", "2 Flink TaskManagers 2048 MiB",
                        "2 Kafka Connect workers 1024 MiB", "2 api instances 1792 MiB", "2 ingest instances 768 MiB")
                .contains("this machine has 9343 MiB available", "--without"));
    }

    @Test
    void partsLeftOutCountNothing() {
        ClusterPlan cluster = ClusterPlan.CLUSTER;

        assertThat(cluster.budget(false, false, false)).doesNotContainKeys("Flink JobManager", "2 Flink TaskManagers",
                "2 Kafka Connect workers", "the lake's query service");
        assertThat(cluster.refusal(false, false, false, OptionalLong.of(3 * 448 + 2 * 896 + 2 * 384 + 384 + 192))).isEmpty();
        assertThat(ClusterPlan.single().budget(true, true, false)).containsEntry("the CEP job (MiniCluster)", 768)
                .containsEntry("1 Kafka broker", 448);
    }

    @Test
    void theMemoryAvailableIsReadFromMeminfoAndUnknownMemoryRefusesNothing(@TempDir Path dir) throws Exception {
        Path meminfo = dir.resolve("meminfo");
        Files.writeString(meminfo, "MemTotal:       24576000 kB\nMemFree:         1000000 kB\nMemAvailable:   20480000 kB\n");

        assertThat(ClusterPlan.availableMemoryMib(meminfo)).hasValue(20_000);
        assertThat(ClusterPlan.availableMemoryMib(dir.resolve("missing"))).isEmpty();
        assertThat(ClusterPlan.CLUSTER.refusal(true, true, true, OptionalLong.empty())).isEmpty();
    }
}
