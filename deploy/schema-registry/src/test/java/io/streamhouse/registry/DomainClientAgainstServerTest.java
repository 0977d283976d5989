package io.streamhouse.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegisteredSchema;
import io.streamhouse.domain.wire.SchemaRegistryException;
import java.time.Duration;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The domain's registry client against this server: the pair the applications will run with. */
class DomainClientAgainstServerTest {

    private static final Schema V1 = new Schema.Parser().parse(Schemas.PARCEL_V1);
    private static final Schema V2 = new Schema.Parser().parse(Schemas.PARCEL_V2_WITH_DEFAULT);
    /** {@code id} turned from string into int: no version can read the other's data. */
    private static final Schema BREAKING = new Schema.Parser().parse(Schemas.PARCEL_V1.replace(
            "\"name\":\"id\",\"type\":\"string\"", "\"name\":\"id\",\"type\":\"int\""));

    private SchemaRegistryServer server;
    private CachingSchemaRegistryClient client;

    @BeforeEach
    void start() {
        server = SchemaRegistryServer.start("127.0.0.1", 0, new InMemorySchemaStore());
        client = new CachingSchemaRegistryClient(server.url().toString(), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void everyClientCallWorks() {
        int id1 = client.register("parcels-value", V1);
        int id2 = client.register("parcels-value", V2);

        assertThat(client.getId("parcels-value", V1)).isEqualTo(id1);
        assertThat(client.getById(id2)).isEqualTo(V2);
        assertThat(client.getLatest("parcels-value")).isEqualTo(new RegisteredSchema("parcels-value", 2, id2, V2));
        assertThat(client.testCompatibility("parcels-value", V1)).isTrue();
        assertThat(client.testCompatibility("parcels-value", BREAKING)).isFalse();
    }

    @Test
    void errorCodesReachTheClient() {
        client.register("parcels-value", V1);

        assertThatThrownBy(() -> client.register("parcels-value", BREAKING))
                .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(409);
                    assertThat(e.getMessage()).contains("TYPE_MISMATCH", "field:'id'");
                });
        assertThatThrownBy(() -> client.getById(77))
                .isInstanceOfSatisfying(SchemaRegistryException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(40403));
        assertThatThrownBy(() -> client.getId("parcels-value", V2))
                .isInstanceOfSatisfying(SchemaRegistryException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(40403));
        assertThatThrownBy(() -> client.getLatest("nobody"))
                .isInstanceOfSatisfying(SchemaRegistryException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(40401));
    }
}
