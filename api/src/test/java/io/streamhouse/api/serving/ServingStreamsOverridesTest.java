package io.streamhouse.api.serving;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamhouse.api.ApiConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServingStreamsOverridesTest {
    private static Properties defaults() {
        return ServingStreams.properties("streamhouse-serving", "127.0.0.1:9092", new HostInfo("127.0.0.1", 8082),
                Path.of("target/state"), 1, 100, 2);
    }

    @Test
    void operatorPropertiesReplaceTheTunablesAndReachTheClients() {
        Properties props = ServingStreams.withOverrides(defaults(), Map.of(
                StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "250", "producer.linger.ms", "5"));

        assertThat(props).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "250")
                .containsEntry("producer.linger.ms", "5")
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(new StreamsConfig(props).getProducerConfigs("c")).containsEntry("linger.ms", "5");
    }

    @Test
    void dottedKafkaNamesArriveWholeFromConfiguration() {
        ApiConfig config = new SmallRyeConfigBuilder().withMapping(ApiConfig.class)
                .withSources(new PropertiesConfigSource(Map.of(
                        "streamhouse.kafka.bootstrap-servers", "127.0.0.1:9092",
                        "streamhouse.schema-registry.url", "http://127.0.0.1:8085",
                        "streamhouse.serving.streams.\"producer.linger.ms\"", "5",
                        "streamhouse.serving.streams.consumer.fetch.max.wait.ms", "50"), "test", 100))
                .build().getConfigMapping(ApiConfig.class);

        assertThat(config.serving().streams())
                .containsEntry("producer.linger.ms", "5")
                .containsEntry("consumer.fetch.max.wait.ms", "50");
    }

    @Test
    void whatCorrectnessDependsOnIsRefusedByName() {
        assertThatThrownBy(() -> ServingStreams.withOverrides(defaults(), Map.of(
                StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE, "producer.linger.ms", "5")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[processing.guarantee]");
    }

    @Test
    void securityComesFromKafkaClientSettingsAndCannotBeOverridden() {
        assertThat(defaults()).containsEntry(StreamsConfig.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
        assertThatThrownBy(() -> ServingStreams.withOverrides(defaults(), Map.of("consumer.sasl.jaas.config", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[consumer.sasl.jaas.config]");
    }

    @Test
    void staticMembershipNamesEveryStreamThreadAfterTheInstance() {
        Properties props = ServingStreams.withStaticMembership(defaults(), java.util.Optional.of("api-pod-0"));
        StreamsConfig config = new StreamsConfig(props);

        assertThat(config.getMainConsumerConfigs("streamhouse-serving", "c", 2))
                .containsEntry(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "api-pod-0-2");
        assertThat(ServingStreams.withStaticMembership(defaults(), java.util.Optional.empty()))
                .doesNotContainKey(StreamsConfig.consumerPrefix(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    }
}
