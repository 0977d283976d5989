package io.streamhouse.api.streams;

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
 * The clients Quarkus builds from configuration take their security settings from KafkaClientSettings: the decision
 * application's {@code kafka-streams.*} and the default Kafka configuration ({@code kafka.*}) that the audit channel reads.
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class KafkaSecuritySourceIT {
    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> defaultKafka;

    @Test
    void quarkusBuiltClientsGetTheSharedSecuritySettings() {
        var config = ConfigProvider.getConfig();
        for (String key : new String[] {"kafka.security.protocol", "kafka-streams.security.protocol"}) {
            var value = config.getConfigValue(key);
            assertThat(value.getValue()).as(key).isEqualTo("PLAINTEXT");
            assertThat(value.getSourceName()).as(key).contains("streamhouse-kafka-security");
        }
        assertThat(defaultKafka).containsEntry("security.protocol", "PLAINTEXT");
    }
}
