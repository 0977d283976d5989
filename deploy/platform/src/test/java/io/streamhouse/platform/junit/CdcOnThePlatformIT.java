package io.streamhouse.platform.junit;

import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop schema is migrated at start, and the platform's Connect worker captures it: a committed row arrives on
 * {@code shop.cdc.changes} in the registry wire format, with its amount as an exact Avro decimal.
 */
@WithStreamhousePlatform
class CdcOnThePlatformIT {

    @Test
    void stoppingCdcWithPurgeDropsTheSlotAndThePublicationAndCdcCanStartAgain(EmbeddedPlatform platform) throws Exception {
        platform.cdc();
        var source = platform.cdcSource().orElseThrow();
        assertThat(slotsAndPublications(platform, source.slotName(), source.publicationName())).isEqualTo(2);

        assertThat(platform.stopCdcAndDropCapture()).isTrue();
        assertThat(slotsAndPublications(platform, source.slotName(), source.publicationName())).isZero();
        assertThat(platform.stopCdcAndDropCapture()).as("nothing left to drop").isFalse();

        platform.cdc();
        assertThat(slotsAndPublications(platform, source.slotName(), source.publicationName())).isEqualTo(2);
    }

    private static int slotsAndPublications(EmbeddedPlatform platform, String slot, String publication) throws Exception {
        try (Connection c = platform.postgres().connect(); var s = c.prepareStatement(
                "SELECT (SELECT count(*) FROM pg_replication_slots WHERE slot_name = ?)"
                        + " + (SELECT count(*) FROM pg_publication WHERE pubname = ?)")) {
            s.setString(1, slot);
            s.setString(2, publication);
            try (var rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void aCommittedOrderArrivesAsAWireFormatChangeWithAnExactDecimal(EmbeddedPlatform platform) throws Exception {
        platform.cdc();
        String customer = "it-" + UUID.randomUUID();
        try (Connection c = platform.postgres().connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO shop.customers (id, email, full_name, registered_at) VALUES ('" + customer
                    + "', 'a@example.com', 'Ada', now())");
            s.execute("INSERT INTO shop.orders (id, customer_id, status, currency, total, line_count, ship_line1, ship_city,"
                    + " ship_postal_code, ship_country, placed_at, updated_at) VALUES ('o-" + customer + "', '" + customer
                    + "', 'PLACED', 'EUR', 1234567.8901, 1, 'Coolsingel 1', 'Rotterdam', '3011AA', 'NL', now(), now())");
            s.execute("INSERT INTO shop.order_lines (order_id, line_no, sku, quantity, unit_price) VALUES ('o-" + customer
                    + "', 1, 'sku-1', 1, 1234567.8901)");
            c.commit();
        }

        var registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        List<Schema> seen = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "cdc-it-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.CDC_SHOP_CHANGES.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen.stream().noneMatch(s -> s.getFullName().equals("shopdb.shop.order_lines.Envelope"))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        seen.add(registry.getById(WireFormat.schemaId(r.value(), r.topic())));
                    }
                }
            }
        }
        assertThat(seen).extracting(Schema::getFullName).contains("shopdb.shop.customers.Envelope",
                "shopdb.shop.orders.Envelope", "shopdb.shop.order_lines.Envelope");
        Schema orders = seen.stream().filter(s -> s.getFullName().equals("shopdb.shop.orders.Envelope")).findFirst().orElseThrow();
        Schema row = orders.getField("after").schema().getTypes().get(1);
        assertThat(row.getField("total").schema().getLogicalType()).isEqualTo(LogicalTypes.decimal(19, 4));
        assertThat(registry.getLatest("shop.cdc.changes-shopdb.shop.orders.Envelope").id()).isPositive();
    }
}
