package io.streamhouse.platform;

import io.streamhouse.broker.BrokerCluster;
import io.streamhouse.broker.BrokerOptions;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.supervisor.RestartPolicy;
import io.streamhouse.supervisor.Supervisor;
import org.apache.kafka.clients.admin.Admin;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Three secured KRaft nodes set up as the platform sets up a cluster: SCRAM logins, {@link KafkaAcls} applied once
 * through the cluster, the catalog's topics with the cluster's replication. Under a supervisor that restarts a node
 * that dies, as the launcher's does.
 */
final class SecuredCluster implements AutoCloseable {

    final Path credentials;
    final BrokerCluster cluster;
    final Supervisor supervisor;

    private SecuredCluster(Path credentials, BrokerCluster cluster, Supervisor supervisor) {
        this.credentials = credentials;
        this.cluster = cluster;
        this.supervisor = supervisor;
    }

    static SecuredCluster start(String name) throws Exception {
        Path dir = TestDirs.fresh(name);
        Path credentials = dir.resolve("credentials");
        Supervisor supervisor = new Supervisor(new RestartPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofSeconds(60)),
                e -> System.out.println(name + ": " + e.line()));
        BrokerCluster cluster = BrokerCluster.start(BrokerOptions.ephemeral(dir.resolve("kafka")).withCredentials(credentials), 3, supervisor);
        SecuredCluster secured = new SecuredCluster(credentials, cluster, supervisor);
        try (Admin admin = secured.admin(KafkaPrincipal.PLATFORM)) {
            KafkaAcls.apply(admin);
            TopicProvisioner.ensure(admin, Topics.allWithDeadLetters(), cluster.replicationFactor());
        } catch (Exception | AssertionError e) {
            secured.close();
            throw e;
        }
        return secured;
    }

    KafkaClientSettings settings(KafkaPrincipal principal) {
        return KafkaClientSettings.from(principal, Map.of(
                KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT",
                KafkaClientSettings.CREDENTIALS_DIR_ENV, credentials.toString())::get);
    }

    Admin admin(KafkaPrincipal principal) {
        return Admin.create(settings(principal).admin(cluster.bootstrapServers()));
    }

    /** Every node's JVM killed and kept down: the data is thrown away with the test's directory. */
    @Override
    public void close() {
        cluster.killAndStop();
    }
}
