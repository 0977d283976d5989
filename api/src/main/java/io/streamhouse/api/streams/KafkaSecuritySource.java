package io.streamhouse.api.streams;

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
 * {@code kafka-streams.*} for the decision application (principal {@code decisions}) and {@code kafka.*} for the
 * default Kafka configuration that the audit channel (SmallRye Reactive Messaging) reads (principal {@code api}).
 * The api's own clients call {@link KafkaClientSettings} directly. Above system properties and the environment: the
 * security settings are a guarantee, not a tunable.
 */
public class KafkaSecuritySource implements ConfigSourceFactory {
    static final int ORDINAL = 500;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        Map<String, String> props = new HashMap<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.API).security("kafka."));
        props.putAll(KafkaClientSettings.forPrincipal(KafkaPrincipal.DECISIONS).security("kafka-streams."));
        return List.of(new PropertiesConfigSource(props, "streamhouse-kafka-security", ORDINAL));
    }
}
