package io.streamhouse.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RegistryConfigTest {

    @Test
    void defaultsAreLoopbackConfluentsPortAndTopicAndOneReplica() {
        RegistryConfig config = RegistryConfig.of("localhost:9092");

        assertThat(config).isEqualTo(new RegistryConfig("localhost:9092", "127.0.0.1", 8081, "_schemas", (short) 1));
        assertThat(config.withPort(0).withTopic("_schemas_test").withHost("0.0.0.0")
                .withReplicationFactor((short) 3))
                .isEqualTo(new RegistryConfig("localhost:9092", "0.0.0.0", 0, "_schemas_test", (short) 3));
    }

    @Test
    void nonsenseIsRejectedBeforeAnythingStarts() {
        RegistryConfig config = RegistryConfig.of("localhost:9092");

        assertThatThrownBy(() -> RegistryConfig.of(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withPort(70_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withTopic("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withReplicationFactor((short) 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBusyPortFailsTheStartAndReleasesTheStore() {
        try (SchemaRegistryServer first = SchemaRegistryServer.start("127.0.0.1", 0, new InMemorySchemaStore())) {
            assertThatThrownBy(() -> SchemaRegistryServer.start("127.0.0.1", first.port(), new InMemorySchemaStore()))
                    .hasMessageContaining("Cannot bind schema registry to 127.0.0.1:" + first.port());
            assertThat(new RegistryHttp(first.url()).get("/").status()).isEqualTo(200);
        }
    }

    @Test
    void theStandaloneRegistryReadsItsEnvironmentAndArgumentsWinOverIt() {
        Map<String, String> env = Map.of("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092", "REGISTRY_PORT", "18081",
                "REGISTRY_HOST", "0.0.0.0", "REGISTRY_TOPIC", "_schemas_x", "REGISTRY_REPLICATION_FACTOR", "3");

        assertThat(SchemaRegistryServer.configFrom(new String[0], env::get))
                .isEqualTo(new RegistryConfig("kafka:9092", "0.0.0.0", 18081, "_schemas_x", (short) 3));
        assertThat(SchemaRegistryServer.configFrom(new String[]{"other:9092", "9999"}, env::get))
                .isEqualTo(new RegistryConfig("other:9092", "0.0.0.0", 9999, "_schemas_x", (short) 3));
        assertThat(SchemaRegistryServer.configFrom(new String[0], name -> null)).isEqualTo(RegistryConfig.of("localhost:9092"));
        assertThat(SchemaRegistryServer.ENVIRONMENT).containsExactlyInAnyOrderElementsOf(env.keySet());
    }

    @Test
    void aVariableThatIsNoNumberIsNamed() {
        assertThatThrownBy(() -> SchemaRegistryServer.configFrom(new String[0], Map.of("REGISTRY_PORT", "http")::get))
                .hasMessage("REGISTRY_PORT must be a number, was 'http'");
        assertThatThrownBy(() -> SchemaRegistryServer.configFrom(new String[0], Map.of("REGISTRY_REPLICATION_FACTOR", "40000")::get))
                .hasMessage("REGISTRY_REPLICATION_FACTOR is too large: 40000");
    }
}
