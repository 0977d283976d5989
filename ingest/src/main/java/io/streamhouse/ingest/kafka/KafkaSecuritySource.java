package io.streamhouse.ingest.kafka;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.PropertiesConfigSource;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The Kafka security settings of the clients Quarkus builds from configuration, from {@link KafkaClientSettings}:
 * {@code kafka.*}, the default Kafka configuration that the audit channel (SmallRye Reactive Messaging) and the Kafka
 * health check read (principal {@code ingest}). ingest's own clients and the CDC normaliser call
 * {@link KafkaClientSettings} directly. Above system properties and the environment: the security settings are a
 * guarantee, not a tunable.
 */
public class KafkaSecuritySource implements ConfigSourceFactory {
    static final int ORDINAL = 500;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        Map<String, String> props = new HashMap<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.INGEST).security("kafka."));
        return List.of(new PropertiesConfigSource(props, "streamhouse-kafka-security", ORDINAL));
    }
}
