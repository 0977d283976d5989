package io.streamhouse.platform;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlatformOptionsTest {

    @Test
    void testsGetAFreshEphemeralDirectoryUnderTargetAndFreePorts() {
        PlatformOptions a = PlatformOptions.forTests();
        PlatformOptions b = PlatformOptions.forTests();
        assertThat(a.ephemeral()).isTrue();
        assertThat(a.kafkaPort()).isZero();
        assertThat(a.postgresPort()).isZero();
        assertThat(a.dataDir()).startsWithRaw(Path.of("target").toAbsolutePath()).isNotEqualTo(b.dataDir());
    }

    @Test
    void theLauncherKeepsItsDataAndUsesTheUsualKafkaPort() {
        PlatformOptions options = PlatformOptions.forLauncher(Path.of("target", "launcher"));
        assertThat(options.ephemeral()).isFalse();
        assertThat(options.kafkaPort()).isEqualTo(9092);
        assertThat(options.postgresBinariesDir()).startsWithRaw(options.dataDir());
        assertThat(options.withKafkaPort(0).kafkaPort()).isZero();
        assertThat(options.withKafkaPort(0).ephemeral()).isFalse();
    }

    @Test
    void rejectsWhatWouldOnlyFailHalfWayThroughTheStart() {
        PlatformOptions options = PlatformOptions.forTests();
        assertThatThrownBy(() -> options.withKafkaPort(65_536)).hasMessageContaining("ports");
        assertThatThrownBy(() -> new PlatformOptions(options.dataDir(), true, 0, 0, null,
                PlatformOptions.PostgresMode.AUTO, 0, null, null, "drop table x")).hasMessageContaining("schema");
        assertThatThrownBy(() -> new PlatformOptions(options.dataDir(), true, 0, 0, null,
                PlatformOptions.PostgresMode.AUTO, 0, null, "Bad-Name", null)).hasMessageContaining("database");
        assertThatThrownBy(() -> options.withBrokerMaxHeap("lots")).hasMessageContaining("maxHeap");
        assertThatThrownBy(() -> options.withBrokers(0)).hasMessageContaining("brokers");
        assertThatThrownBy(() -> options.withBrokers(PlatformOptions.MAX_BROKERS + 1)).hasMessageContaining("brokers");
        assertThatThrownBy(() -> options.withKafkaPort(65_534).withBrokers(3)).hasMessageContaining("65535");
    }

    @Test
    void oneBrokerUnlessAClusterIsAskedFor() {
        assertThat(PlatformOptions.forTests().brokers()).isEqualTo(1);
        assertThat(PlatformOptions.forLauncher(Path.of("target", "launcher")).brokers()).isEqualTo(1);
        PlatformOptions cluster = PlatformOptions.forLauncher(Path.of("target", "launcher")).withBrokers(3);
        assertThat(cluster.brokers()).isEqualTo(3);
        assertThat(cluster.withKafkaPort(0).withRegistryPort(0).brokers()).as("kept by every with*").isEqualTo(3);
    }

    @Test
    void theBrokerIsStartedUnlessAnExternalKafkaIsNamedAndItIsKeptByEveryOtherChange() {
        PlatformOptions options = PlatformOptions.forTests();
        assertThat(options.externalKafka()).isNull();
        assertThat(PlatformOptions.forLauncher(Path.of("target", "launcher")).externalKafka()).isNull();
        PlatformOptions external = options.withExternalKafka("localhost:32789,127.0.0.1:9093");
        assertThat(external.externalKafka()).isEqualTo("localhost:32789,127.0.0.1:9093");
        assertThat(external.withRegistryPort(0).withPostgresMode(PlatformOptions.PostgresMode.EXTERNAL)
                .withDataDir(Path.of("target", "x")).externalKafka()).isEqualTo("localhost:32789,127.0.0.1:9093");
        assertThatThrownBy(() -> options.withExternalKafka("PLAINTEXT://localhost:9092")).hasMessageContaining("externalKafka");
        assertThatThrownBy(() -> options.withExternalKafka("localhost")).hasMessageContaining("externalKafka");
    }
}
