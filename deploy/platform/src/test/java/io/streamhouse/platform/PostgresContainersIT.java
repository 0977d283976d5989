package io.streamhouse.platform;

import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The external-PostgreSQL path ({@value ExternalPostgres#URL_ENV}) against real servers of the major versions this
 * machine has neither locally (15) nor embedded (17): each runs in a container (Testcontainers), so these tests run
 * only where a Docker engine is (tag {@code docker}, the root pom's {@code docker} profile). A server without logical
 * decoding is refused with the fix in the message; one with it gets the shop schema migrated and its commits
 * captured by the platform's Debezium connector, as an operator's own server would.
 */
@Tag("docker")
class PostgresContainersIT {

    @ParameterizedTest
    @ValueSource(strings = {"postgres:14-alpine", "postgres:16-alpine"})
    void aServerWithoutLogicalDecodingIsRefusedWithTheFix(String image) {
        try (PostgreSQLContainer server = new PostgreSQLContainer(DockerImageName.parse(image))
                .withPassword("pw-" + UUID.randomUUID())) {
            server.start();
            assertThatThrownBy(() -> ExternalPostgres.connect(server.getJdbcUrl(), server.getUsername(), server.getPassword()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("must be 'logical'")
                    .hasMessageContaining("ALTER SYSTEM SET wal_level = logical")
                    .hasMessageNotContaining(server.getPassword());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres:14-alpine", "postgres:16-alpine"})
    void theShopSchemaIsMigratedAndACommittedOrderIsCaptured(String image) throws Exception {
        try (PostgreSQLContainer server = new PostgreSQLContainer(DockerImageName.parse(image))
                .withCommand("postgres", "-c", "wal_level=logical", "-c", "max_wal_senders=4", "-c", "max_replication_slots=4")) {
            server.start();
            Map<String, String> environment = Map.of(ExternalPostgres.URL_ENV, server.getJdbcUrl(),
                    ExternalPostgres.USER_ENV, server.getUsername(), ExternalPostgres.PASSWORD_ENV, server.getPassword());
            try (EmbeddedPlatform platform = EmbeddedPlatform.start(
                    PlatformOptions.forTests().withPostgresMode(PlatformOptions.PostgresMode.EXTERNAL), environment)) {
                assertThat(platform.postgres()).isInstanceOf(ExternalPostgres.class);
                platform.cdc();
                String order = "o-" + UUID.randomUUID();
                try (Connection c = platform.postgres().connect(); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    s.execute("INSERT INTO shop.customers (id, email, full_name, registered_at) VALUES ('c-" + order
                            + "', 'a@example.com', 'Ada', now())");
                    s.execute("INSERT INTO shop.orders (id, customer_id, status, currency, total, line_count, ship_line1,"
                            + " ship_city, ship_postal_code, ship_country, placed_at, updated_at) VALUES ('" + order
                            + "', 'c-" + order + "', 'PLACED', 'EUR', 42.5050, 1, 'Coolsingel 1', 'Rotterdam', '3011AA', 'NL',"
                            + " now(), now())");
                    // line_count must be positive (V1__shop_tables.sql), and the order's line is in the same commit.
                    s.execute("INSERT INTO shop.order_lines (order_id, line_no, sku, quantity, unit_price) VALUES ('" + order
                            + "', 1, 'sku-1', 1, 42.5050)");
                    c.commit();
                }
                assertThat(capturedRecordNames(platform, Duration.ofSeconds(60)))
                        .contains("shopdb.shop.customers.Envelope", "shopdb.shop.orders.Envelope");
            }
        }
    }

    /** The record names of the changes on the raw CDC topic, read until the order's change arrived or the deadline. */
    private static List<String> capturedRecordNames(EmbeddedPlatform platform, Duration timeout) {
        var registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        List<String> names = new java.util.ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "containers-it-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.CDC_SHOP_CHANGES.name()));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!names.contains("shopdb.shop.orders.Envelope") && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        names.add(registry.getById(WireFormat.schemaId(r.value(), r.topic())).getFullName());
                    }
                }
            }
        }
        return names;
    }
}
