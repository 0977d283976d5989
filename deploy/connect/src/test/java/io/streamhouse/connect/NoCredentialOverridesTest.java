package io.streamhouse.connect;

import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigRequest;
import org.apache.kafka.connect.health.ConnectorType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** A connector may tune its clients, never change their credentials (issue #19 item 4). */
class NoCredentialOverridesTest {

    private static List<ConfigValue> validate(Map<String, Object> overrides) {
        return new NoCredentialOverrides().validate(new ConnectorClientConfigRequest("lake", ConnectorType.SINK,
                org.apache.kafka.connect.sink.SinkConnector.class, overrides, ConnectorClientConfigRequest.ClientType.CONSUMER));
    }

    @Test
    void theLakeConnectorsOwnOverridesPass() {
        assertThat(validate(Map.of("isolation.level", "read_committed", "auto.offset.reset", "earliest",
                "session.timeout.ms", "10000"))).hasSize(3).allSatisfy(v -> assertThat(v.errorMessages()).isEmpty());
    }

    @Test
    void credentialsAndTheSecurityProtocolAreRefusedByName() {
        List<ConfigValue> values = validate(Map.of("sasl.jaas.config", "x", "security.protocol", "PLAINTEXT",
                "ssl.truststore.location", "/tmp/t", "max.poll.records", "10"));
        assertThat(values).filteredOn(v -> !v.errorMessages().isEmpty()).extracting(ConfigValue::name)
                .containsExactlyInAnyOrder("sasl.jaas.config", "security.protocol", "ssl.truststore.location");
        assertThat(values).filteredOn(v -> v.name().equals("sasl.jaas.config")).singleElement()
                .satisfies(v -> assertThat(v.errorMessages().get(0)).contains("lake").contains("consumer").contains("credentials"));
    }

    @Test
    void theWorkerFindsThePolicyAndIsConfiguredWithIt() {
        assertThat(ServiceLoader.load(ConnectorClientConfigOverridePolicy.class)).anyMatch(NoCredentialOverrides.class::isInstance);
        assertThat(WorkerConfig.of(ConnectOptions.of(java.nio.file.Path.of("target"), "127.0.0.1:9092", "http://127.0.0.1:8085"), 8083))
                .containsEntry("connector.client.config.override.policy", NoCredentialOverrides.class.getName());
    }
}
