package io.streamhouse.platform;

import io.streamhouse.domain.topic.Topics;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seam the container flows use ({@link PlatformOptions#withExternalKafka}), on every build and without Docker: a
 * second platform is given the shared platform's broker as an external Kafka. It starts no broker, provisions the
 * catalog there, and closing it leaves that broker serving. The flows themselves on such a platform are
 * {@code e2e-containers}' {@code FlowsOnAnExternalBrokerIT} (tag e2e) and {@code FlowsOnContainersIT} (tag docker).
 */
@WithStreamhousePlatform
class ExternalKafkaIT {

    private final EmbeddedPlatform shared;

    ExternalKafkaIT(EmbeddedPlatform shared) {
        this.shared = shared;
    }

    @Test
    void aPlatformGivenAnExternalKafkaUsesItStartsNoBrokerAndLeavesItServing(@TempDir Path dir) throws Exception {
        String external = shared.bootstrapServers();
        EmbeddedPlatform platform = EmbeddedPlatform.start(PlatformOptions.forTests().withDataDir(dir).withExternalKafka(external));
        try {
            assertThat(platform.bootstrapServers()).isEqualTo(external);
            assertThat(platform.startTimes()).containsKey("external kafka").doesNotContainKey("kafka broker");
            assertThat(platform.kafka()).as("no broker of its own").isNull();
            assertThat(platform.processes()).noneMatch(p -> p.info().commandLine().orElse("").contains("io.streamhouse.broker."));
            assertThat(Files.exists(dir.resolve("kafka"))).as("no broker storage of its own").isFalse();
        } finally {
            platform.close();
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, external))) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(Topics.TRANSACTION_DECISIONS.name());
        }
    }
}
