package io.streamhouse.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
