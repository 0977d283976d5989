package io.streamhouse.domain.wire;

import static io.streamhouse.domain.wire.Shipments.ROTTERDAM_SCAN;
import static io.streamhouse.domain.wire.Shipments.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.domain.wire.fixture.ShipmentScanned;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP client against a tiny registry that counts requests. */
class CachingSchemaRegistryClientTest {

    private static final Schema V2 = ShipmentScanned.getClassSchema();
    private static final String SUBJECT = TOPIC + "-value";

    private final TestRegistryHttp server;
    private final CachingSchemaRegistryClient client;

    CachingSchemaRegistryClientTest() throws IOException {
        server = new TestRegistryHttp();
        client = server.client();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    @Test
    void registerAsksOnceThenAnswersFromTheCache() {
        int id = client.register(SUBJECT, V2);

        assertThat(client.register(SUBJECT, V2)).isEqualTo(id);
        assertThat(client.register(SUBJECT, new Schema.Parser().parse(V2.toString()))).isEqualTo(id);
        assertThat(client.getId(SUBJECT, V2)).as("lookup shares the register cache").isEqualTo(id);
        assertThat(client.getById(id)).as("register also taught the client id -> schema").isEqualTo(V2);

        assertThat(server.totalCalls()).isEqualTo(1);
        assertThat(server.calls("POST /subjects/" + SUBJECT + "/versions")).isEqualTo(1);
        assertThat(server.contentTypes()).containsOnly("application/vnd.schemaregistry.v1+json");
    }

    @Test
    void schemaByIdIsFetchedOnceAndKeptForever() {
        int id = server.registry().register(SUBJECT, V2);

        for (int i = 0; i < 5; i++) {
            assertThat(client.getById(id)).isEqualTo(V2);
        }

        assertThat(server.calls("GET /schemas/ids/" + id)).isEqualTo(1);
    }

    @Test
    void lookupWithoutRegisteringUsesPostOnTheSubject() {
        int id = server.registry().register(SUBJECT, V2);

        assertThat(client.getId(SUBJECT, V2)).isEqualTo(id);
        assertThat(client.getId(SUBJECT, V2)).isEqualTo(id);

        assertThat(server.calls("POST /subjects/" + SUBJECT)).isEqualTo(1);
        assertThat(server.registry().versions(SUBJECT)).hasSize(1);
    }

    @Test
    void latestIsNeverCachedBecauseItMoves() {
        server.registry().register(SUBJECT, Shipments.V1);
        RegisteredSchema first = client.getLatest(SUBJECT);
        server.registry().register(SUBJECT, V2);
        RegisteredSchema second = client.getLatest(SUBJECT);

        assertThat(first.version()).isEqualTo(1);
        assertThat(first.schema()).isEqualTo(Shipments.V1);
        assertThat(second.version()).isEqualTo(2);
        assertThat(second.schema()).isEqualTo(V2);
        assertThat(second.subject()).isEqualTo(SUBJECT);
        assertThat(server.calls("GET /subjects/" + SUBJECT + "/versions/latest")).isEqualTo(2);
    }

    @Test
    void compatibilityIsAskedEveryTime() {
        server.registry().register(SUBJECT, V2);

        assertThat(client.testCompatibility(SUBJECT, Shipments.V1)).isTrue();
        assertThat(client.testCompatibility(SUBJECT, Shipments.INCOMPATIBLE)).isFalse();
        assertThat(server.calls("POST /compatibility/subjects/" + SUBJECT + "/versions")).isEqualTo(2);
    }

    @Test
    void registryErrorsKeepConfluentsCodeAndStatus() {
        assertThatThrownBy(() -> client.getById(99))
                .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(40403);
                    assertThat(e.httpStatus()).isEqualTo(404);
                    assertThat(e.getMessage()).startsWith("Schema 99 not found");
                });
        assertThatThrownBy(() -> client.getLatest("nobody-value"))
                .isInstanceOfSatisfying(SchemaRegistryException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(40401));

        client.register(SUBJECT, V2);
        assertThatThrownBy(() -> client.register(SUBJECT, Shipments.INCOMPATIBLE))
                .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(409);
                    assertThat(e.httpStatus()).isEqualTo(409);
                    assertThat(e.getMessage()).contains("weightGrams");
                });
    }

    @Test
    void aFailedLookupIsNotCached() {
        assertThatThrownBy(() -> client.getById(1)).isInstanceOf(SchemaRegistryException.class);
        server.registry().register(SUBJECT, V2);

        assertThat(client.getById(1)).isEqualTo(V2);
        assertThat(server.calls("GET /schemas/ids/1")).isEqualTo(2);
    }

    @Test
    void anErrorBodyThatIsNotConfluentJsonStillCarriesTheStatus() {
        server.failNext(1, 404, "<html>not here</html>");

        assertThatThrownBy(() -> client.getById(1))
                .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(404);
                    assertThat(e.errorCode()).isEqualTo(SchemaRegistryException.UNKNOWN_ERROR_CODE);
                    assertThat(e.getMessage()).contains("<html>not here</html>");
                });
    }

    @Test
    void subjectsAreEncodedAsOnePathSegment() {
        String subject = "odd subject/with slash+plus";

        int id = client.register(subject, V2);

        assertThat(server.subjectsSeen()).containsExactly(subject);
        assertThat(server.registry().getLatest(subject).id()).isEqualTo(id);
    }

    @Test
    void unreachableUrlsAreSkippedInOrder() throws IOException {
        String deadUrl = "http://127.0.0.1:" + freePort();
        server.registry().register(SUBJECT, V2);
        try (CachingSchemaRegistryClient failover =
                new CachingSchemaRegistryClient(deadUrl + ", " + server.url() + "/", Duration.ofSeconds(5))) {
            assertThat(failover.getLatest(SUBJECT).schema()).isEqualTo(V2);
        }
    }

    @Test
    void serverErrorsMoveOnToTheNextUrlButClientErrorsDoNot() throws IOException {
        server.registry().register(SUBJECT, V2);
        try (TestRegistryHttp second = new TestRegistryHttp();
                CachingSchemaRegistryClient failover =
                        new CachingSchemaRegistryClient(server.url() + "," + second.url(), Duration.ofSeconds(5))) {
            second.registry().register(SUBJECT, V2);

            server.failNext(1, 503, "{\"error_code\":50003,\"message\":\"Error while forwarding\"}");
            assertThat(failover.getLatest(SUBJECT).version()).isEqualTo(1);
            assertThat(second.totalCalls()).isEqualTo(1);

            server.failNext(1, 422, "{\"error_code\":42201,\"message\":\"Invalid schema\"}");
            assertThatThrownBy(() -> failover.getLatest(SUBJECT))
                    .isInstanceOfSatisfying(SchemaRegistryException.class,
                            e -> assertThat(e.errorCode()).isEqualTo(42201));
            assertThat(second.totalCalls()).as("a 4xx is a verdict, not an outage").isEqualTo(1);
        }
    }

    @Test
    void whenEveryUrlFailsTheMessageListsThemAll() throws IOException {
        String first = "http://127.0.0.1:" + freePort();
        String second = "http://127.0.0.1:" + freePort();
        try (CachingSchemaRegistryClient nowhere =
                new CachingSchemaRegistryClient(first + "," + second, Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> nowhere.getById(1))
                    .isInstanceOf(SerializationException.class)
                    .isNotInstanceOf(SchemaRegistryException.class)
                    .hasMessageContaining(first)
                    .hasMessageContaining(second);
        }
    }

    @Test
    void aHangingRegistryFailsAfterTheRequestTimeout() {
        server.hang();
        try (CachingSchemaRegistryClient impatient =
                new CachingSchemaRegistryClient(server.url(), Duration.ofMillis(300))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> impatient.getById(1))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("HttpTimeoutException");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void rejectsUrlsThatAreNotHttp() {
        assertThatThrownBy(() -> new CachingSchemaRegistryClient(" , "))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CachingSchemaRegistryClient("mock://registry"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void serdeConfiguredFromPropertiesRoundTripsOverHttpAndCachesTheReader() {
        Map<String, Object> config = Map.of(
                AvroSerdeConfig.SCHEMA_REGISTRY_URL, server.url(),
                AvroSerdeConfig.READER_CLASS, ShipmentScanned.class.getName());
        try (AvroSerde<ShipmentScanned> serde = new AvroSerde<>()) {
            serde.configure(config, false);
            for (int i = 0; i < 20; i++) {
                ShipmentScanned scan = ShipmentScanned.newBuilder(ROTTERDAM_SCAN).setScanId("s" + i).build();
                assertThat(serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, scan)))
                        .isEqualTo(scan);
            }
        }
        int id = server.registry().getLatest(SUBJECT).id();
        assertThat(server.calls("POST /subjects/" + SUBJECT + "/versions")).isEqualTo(1);
        assertThat(server.calls("GET /schemas/ids/" + id)).as("serializer and deserializer own separate clients")
                .isEqualTo(1);
    }

    @Test
    void lookupOnlySerializerFromPropertiesNeverRegisters() {
        Map<String, Object> config = Map.of(
                AvroSerdeConfig.SCHEMA_REGISTRY_URL, server.url(),
                AvroSerdeConfig.AUTO_REGISTER_SCHEMAS, "false");
        try (AvroSerializer<ShipmentScanned> serializer = new AvroSerializer<>()) {
            serializer.configure(config, false);

            assertThatThrownBy(() -> serializer.serialize(TOPIC, ROTTERDAM_SCAN))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("auto.register.schemas=false")
                    .hasMessageContaining("40401");
            assertThat(server.calls("POST /subjects/" + SUBJECT + "/versions")).isZero();
            assertThat(server.calls("POST /subjects/" + SUBJECT)).isEqualTo(1);
        }
    }

    @Test
    void closedClientRefusesWork() {
        client.close();

        assertThatThrownBy(() -> client.getById(1)).isInstanceOf(IllegalStateException.class);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
