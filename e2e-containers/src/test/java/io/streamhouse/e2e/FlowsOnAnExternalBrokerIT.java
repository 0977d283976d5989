package io.streamhouse.e2e;

import io.streamhouse.broker.BrokerOptions;
import io.streamhouse.broker.BrokerProcess;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.PlatformOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The end-to-end flows without Docker (tag {@code e2e}, by command: docs/test-suite.md), through the seam the container
 * run uses: the platform is given
 * an external Kafka ({@link PlatformOptions#withExternalKafka}), here a broker child JVM this test starts itself, so
 * the platform starts no broker of its own. PostgreSQL is the platform's usual one (embedded, or
 * {@code STREAMHOUSE_PG_URL}). {@link FlowsOnContainersIT} runs the same flows with both from containers.
 */
@Tag("e2e")
class FlowsOnAnExternalBrokerIT extends EndToEndFlows {
    private BrokerProcess broker;

    @Override
    protected EmbeddedPlatform startPlatformOnKafkaAndPostgres(Path dir) {
        broker = BrokerProcess.start(BrokerOptions.ephemeral(dir.resolveSibling("external-broker")));
        return EmbeddedPlatform.start(PlatformOptions.forTests().withDataDir(dir).withExternalKafka(broker.bootstrapServers()));
    }

    @Override
    protected void stopKafkaAndPostgres() {
        if (broker != null) {
            broker.close();
        }
    }

    /**
     * The platform used the broker it was given and started none: its topics are on that broker, none of its processes
     * is a broker, and closing it leaves the external broker running with its topics (it neither stops nor cleans it).
     */
    @Test
    @Order(6)
    void thePlatformUsesTheGivenBrokerStartsNoneAndLeavesItRunning() throws Exception {
        EmbeddedPlatform platform = platform();
        assertThat(platform.bootstrapServers()).isEqualTo(broker.bootstrapServers());
        assertThat(platform.startTimes()).containsKey("external kafka").doesNotContainKey("kafka broker");
        assertThat(platform.processes()).extracting(ProcessHandle::pid).doesNotContain(broker.pid());
        assertThat(platform.processes()).noneMatch(p -> p.info().commandLine().orElse("").contains("io.streamhouse.broker."));
        assertThat(Files.exists(platform.options().dataDir().resolve("kafka"))).as("no broker storage of its own").isFalse();

        platform.close();

        assertThat(broker.supervised().processHandle()).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(Topics.TRANSACTION_DECISIONS.name());
        }
    }
}
