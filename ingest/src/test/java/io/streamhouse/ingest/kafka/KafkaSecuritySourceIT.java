package io.streamhouse.ingest.kafka;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.common.annotation.Identifier;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clients Quarkus builds from configuration take their security settings from KafkaClientSettings: the default
 * Kafka configuration ({@code kafka.*}) that the audit channel and the Kafka health check read.
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class KafkaSecuritySourceIT {
    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> defaultKafka;

    @Test
    void quarkusBuiltClientsGetTheSharedSecuritySettings() {
        var value = ConfigProvider.getConfig().getConfigValue("kafka.security.protocol");
        assertThat(value.getValue()).isEqualTo("PLAINTEXT");
        assertThat(value.getSourceName()).contains("streamhouse-kafka-security");
        assertThat(defaultKafka).containsEntry("security.protocol", "PLAINTEXT");
    }
}
