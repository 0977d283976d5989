package io.streamhouse.broker;

import io.streamhouse.security.kafka.KafkaCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BrokerSecurityConfigTest {

    @Test
    void theSecuredBrokerTakesScramOnItsClientListenerPlainOnItsControllerAndDeniesWhatNoAclAllows(@TempDir Path dir) {
        Properties p = BrokerMain.securedServerConfig(dir.resolve("kraft"), 9092, 9093,
                Map.of("broker", "b0b0", KafkaCredentials.CONTROLLER_USER, "c0c0"));
        assertThat(p.getProperty("listeners")).isEqualTo("CLIENT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093");
        assertThat(p.getProperty("listener.security.protocol.map")).isEqualTo("CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        assertThat(p.getProperty("sasl.enabled.mechanisms")).isEqualTo("SCRAM-SHA-512");
        assertThat(p.getProperty("listener.name.controller.sasl.enabled.mechanisms")).isEqualTo("PLAIN");
        assertThat(p.getProperty("listener.name.client.scram-sha-512.sasl.jaas.config")).contains("username=\"broker\" password=\"b0b0\"");
        assertThat(p.getProperty("listener.name.controller.plain.sasl.jaas.config")).contains("user_controller=\"c0c0\"");
        assertThat(p.getProperty("authorizer.class.name")).isEqualTo("org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        assertThat(p.getProperty("allow.everyone.if.no.acl.found")).isEqualTo("false");
        assertThat(p.getProperty("super.users")).isEqualTo("User:broker;User:controller;User:platform");
        assertThat(BrokerMain.serverConfig(dir.resolve("kraft"), 9092, 9093).getProperty("authorizer.class.name")).isNull();
    }

    @Test
    void theControllerNeverGetsTheClientsPortWhenTheSystemHandsItOutAgain() {
        Iterator<Integer> handedOut = List.of(34457, 34457, 40001).iterator();
        assertThat(BrokerMain.portOtherThan(34457, handedOut::next)).isEqualTo(40001);
    }

    @Test
    void aStorageFormattedWithoutCredentialsIsRefusedWithTheWayOut(@TempDir Path dir) throws Exception {
        Path kraft = Files.createDirectories(dir.resolve(BrokerMain.KRAFT_DIR));
        assertThatCode(() -> BrokerStorage.refuseStorageWithoutCredentials(dir, kraft)).as("not formatted yet").doesNotThrowAnyException();
        Files.writeString(kraft.resolve("meta.properties"), "version=1\n");
        assertThatThrownBy(() -> BrokerStorage.refuseStorageWithoutCredentials(dir, kraft))
                .hasMessageContaining("./streamhouse up --fresh").hasMessageContaining("Upgrading a data directory");
        Files.writeString(dir.resolve(BrokerStorage.SCRAM_MARKER), "broker\n");
        assertThatCode(() -> BrokerStorage.refuseStorageWithoutCredentials(dir, kraft)).as("formatted with credentials").doesNotThrowAnyException();
    }

    @Test
    void passwordsAreHexOwnerOnlyAndNeverRewritten(@TempDir Path dir) throws Exception {
        Path creds = dir.resolve("creds");
        String first = KafkaCredentials.ensure(creds, "ingest");
        assertThat(first).matches("[0-9a-f]{64}");
        assertThat(Files.readString(KafkaCredentials.file(creds, "ingest"))).as("no newline: Connect reads the file as the value").isEqualTo(first);
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(KafkaCredentials.file(creds, "ingest"))))
                .isEqualTo("rw-------");
        assertThat(KafkaCredentials.ensure(creds, "ingest")).isEqualTo(first);
        assertThat(KafkaCredentials.ensure(creds, "api")).isNotEqualTo(first);
    }
}
