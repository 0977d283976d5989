package io.streamhouse.connect;

import io.streamhouse.security.kafka.KafkaClientSettings;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The worker's {@code connector.client.config.override.policy} ({@code NoCredentialOverrides}): a connector may tune
 * its clients ({@code consumer.override.isolation.level} and the like, which the lake connector needs) but not change
 * who they are — every {@code security.protocol}, {@code sasl.*} and {@code ssl.*} override is refused, so a connector
 * config (stored in clear on the worker's config topic, writable through Connect's REST port) cannot swap in other
 * credentials or turn security off. Kafka's own {@code All} allows that; {@code None} would refuse the lake
 * connector's overrides too; {@code Principal} allows only the credentials. docs/kafka-security.md, "Kafka clients".
 */
public final class NoCredentialOverrides implements ConnectorClientConfigOverridePolicy {
    public static final String ALIAS = "NoCredentialOverrides";

    @Override
    public List<ConfigValue> validate(ConnectorClientConfigRequest request) {
        List<ConfigValue> values = new ArrayList<>();
        for (Map.Entry<String, Object> e : request.clientProps().entrySet()) {
            ConfigValue value = new ConfigValue(e.getKey(), e.getValue(), List.of(), new ArrayList<>());
            if (KafkaClientSettings.isSecuritySetting(e.getKey())) {
                value.addErrorMessage("connector " + request.connectorName() + " may not override " + e.getKey()
                        + " of its " + request.clientType().name().toLowerCase(java.util.Locale.ROOT)
                        + ": its clients' credentials are the worker's (policy " + ALIAS + ")");
            }
            values.add(value);
        }
        return values;
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public void close() {
    }
}
