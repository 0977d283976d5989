package io.streamhouse.api.streams;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamhouse.api.ApiConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

class InstanceIdentityTest {
    private static final Map<String, String> BASE = Map.of(
            "streamhouse.kafka.bootstrap-servers", "127.0.0.1:9092",
            "streamhouse.schema-registry.url", "http://127.0.0.1:8085");

    /** One start of the api: its configuration, built from these properties and the identity factory. */
    private static SmallRyeConfig start(Map<String, String> props) {
        Map<String, String> all = new HashMap<>(BASE);
        all.putAll(props);
        return new SmallRyeConfigBuilder().withMapping(ApiConfig.class)
                .withSources(new PropertiesConfigSource(all, "application", 250))
                .withSources(new InstanceIdentity())
                .build();
    }

    @Test
    void aRestartedInstanceKeepsItsIdAndBothAppsUseIt() {
        Map<String, String> props = Map.of("kafka-streams.state.dir", "/data/api-state");
        SmallRyeConfig first = start(props);
        SmallRyeConfig restarted = start(props);

        String id = first.getValue(InstanceIdentity.INSTANCE_ID, String.class);
        assertThat(restarted.getValue(InstanceIdentity.INSTANCE_ID, String.class)).isEqualTo(id).startsWith("api-");
        assertThat(restarted.getValue(InstanceIdentity.DECISION_GROUP_INSTANCE_ID, String.class)).isEqualTo(id);
        assertThat(restarted.getConfigMapping(ApiConfig.class).instanceId()).contains(id);
        // Quarkus hands kafka-streams.* to Streams by iterating the names: the derived one must be among them.
        assertThat(restarted.getPropertyNames()).contains(InstanceIdentity.DECISION_GROUP_INSTANCE_ID);
    }

    @Test
    void anotherStateDirectoryIsAnotherInstance() {
        String a = start(Map.of("kafka-streams.state.dir", "/data/api-state")).getValue(InstanceIdentity.INSTANCE_ID, String.class);
        String b = start(Map.of("kafka-streams.state.dir", "/data/api-state-2")).getValue(InstanceIdentity.INSTANCE_ID, String.class);

        assertThat(a).isNotEqualTo(b);
        assertThat(InstanceIdentity.derive("host-a", Path.of("/data/api-state")))
                .isNotEqualTo(InstanceIdentity.derive("host-b", Path.of("/data/api-state")))
                .isEqualTo(InstanceIdentity.derive("host-a", Path.of("/data/./api-state")));
    }

    @Test
    void theIdQuarkusRecordedAtBuildTimeIsNotTakenForAChoice() {
        // What the build-time run of this factory derived, as Quarkus hands it back at run time ("Runtime Values", ordinal 0):
        // taken for a setting, every instance of one build shared it and the broker fenced all but one (seen on a 2-instance stack).
        Map<String, String> recorded = Map.of(InstanceIdentity.INSTANCE_ID, "api-built", InstanceIdentity.DECISION_GROUP_INSTANCE_ID, "api-built");
        Map<String, String> all = new HashMap<>(BASE);
        all.put("kafka-streams.state.dir", "/data/api-state-2");
        SmallRyeConfig second = new SmallRyeConfigBuilder().withMapping(ApiConfig.class)
                .withSources(new PropertiesConfigSource(recorded, "Runtime Values", 0))
                .withSources(new PropertiesConfigSource(all, "application", 250))
                .withSources(new InstanceIdentity())
                .build();

        String expected = InstanceIdentity.derive(InstanceIdentity.hostName(), Path.of("/data/api-state-2"));
        assertThat(second.getValue(InstanceIdentity.INSTANCE_ID, String.class)).isEqualTo(expected);
        assertThat(second.getValue(InstanceIdentity.DECISION_GROUP_INSTANCE_ID, String.class)).isEqualTo(expected);
    }

    @Test
    void aGivenIdWinsAndDynamicMembershipSetsNoGroupInstanceId() {
        SmallRyeConfig named = start(Map.of("streamhouse.instance-id", "api-pod-0"));
        assertThat(named.getValue(InstanceIdentity.DECISION_GROUP_INSTANCE_ID, String.class)).isEqualTo("api-pod-0");

        SmallRyeConfig dynamic = start(Map.of("streamhouse.instance-id", "api-pod-0", "streamhouse.static-membership", "false"));
        assertThat(dynamic.getOptionalValue(InstanceIdentity.DECISION_GROUP_INSTANCE_ID, String.class)).isEmpty();
        assertThat(dynamic.getConfigMapping(ApiConfig.class).staticMembership()).isFalse();
    }

    @Test
    void eachStreamThreadJoinsAsItsOwnStaticMember() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "streamhouse-api");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092");
        props.put(InstanceIdentity.DECISION_GROUP_INSTANCE_ID.substring("kafka-streams.".length()), "api-pod-0");
        StreamsConfig config = new StreamsConfig(props);

        assertThat(config.getMainConsumerConfigs("streamhouse-api", "c", 1))
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "api-pod-0-1");
        assertThat(config.getRestoreConsumerConfigs("c")).doesNotContainKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    }
}
