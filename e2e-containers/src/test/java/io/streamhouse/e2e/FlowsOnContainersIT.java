package io.streamhouse.e2e;

import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.ExternalPostgres;
import io.streamhouse.platform.PlatformOptions;
import org.junit.jupiter.api.Tag;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

import java.nio.file.Path;
import java.util.Map;

/**
 * The end-to-end flows against a Kafka container ({@value #KAFKA_IMAGE}, the broker version the apps' clients use) and
 * a PostgreSQL container ({@value #POSTGRES_IMAGE}, logical decoding on): the platform starts no broker and no
 * PostgreSQL of its own, and starts its registry, topics, Connect worker (Debezium, the Iceberg sink) on them. Runs
 * only where a Docker engine is (tag {@code docker}, the root pom's {@code docker} profile); without one it fails at
 * once, saying so, rather than waiting. The same flows run on every build against a separately started broker
 * ({@link FlowsOnAnExternalBrokerIT}).
 */
@Tag("docker")
class FlowsOnContainersIT extends EndToEndFlows {
    static final String KAFKA_IMAGE = "apache/kafka:4.1.2";
    static final String POSTGRES_IMAGE = "postgres:16-alpine";

    private KafkaContainer kafka;
    private PostgreSQLContainer postgres;

    @Override
    protected EmbeddedPlatform startPlatformOnKafkaAndPostgres(Path dir) {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            throw new IllegalStateException("FlowsOnContainersIT needs a Docker engine (it is tagged 'docker' and runs with"
                    + " -Pdocker or where /var/run/docker.sock exists), and Testcontainers finds none: start Docker or set"
                    + " DOCKER_HOST, or leave out -Pdocker (FlowsOnAnExternalBrokerIT runs the same flows without Docker)");
        }
        // As the platform's own broker is configured where it matters to the flows: topics only as provisioned, three
        // partitions by default, timed-out transactions aborted within a second.
        kafka = new KafkaContainer(DockerImageName.parse(KAFKA_IMAGE))
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withEnv("KAFKA_NUM_PARTITIONS", "3")
                .withEnv("KAFKA_TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS", "1000");
        postgres = new PostgreSQLContainer(DockerImageName.parse(POSTGRES_IMAGE))
                .withCommand("postgres", "-c", "wal_level=logical", "-c", "max_wal_senders=8", "-c", "max_replication_slots=8");
        kafka.start();
        postgres.start();
        Map<String, String> environment = Map.of(ExternalPostgres.URL_ENV, postgres.getJdbcUrl(),
                ExternalPostgres.USER_ENV, postgres.getUsername(), ExternalPostgres.PASSWORD_ENV, postgres.getPassword());
        return EmbeddedPlatform.start(PlatformOptions.forTests().withDataDir(dir).withExternalKafka(kafka.getBootstrapServers())
                .withPostgresMode(PlatformOptions.PostgresMode.EXTERNAL), environment);
    }

    @Override
    protected void stopKafkaAndPostgres() {
        if (postgres != null) {
            postgres.stop();
        }
        if (kafka != null) {
            kafka.stop();
        }
    }
}
