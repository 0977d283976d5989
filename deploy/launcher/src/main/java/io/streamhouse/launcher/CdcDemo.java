package io.streamhouse.launcher;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The demo's change-data-capture leg: one order written to the shop database as the order service would (customer,
 * order and two lines, one transaction each), then awaited as {@code OrderPlaced} on {@code shop.orders} — through
 * Debezium in the Connect worker and the normaliser that ingest runs.
 */
final class CdcDemo {

    record Result(boolean arrived, String customerId, String orderId, Duration took, BigDecimal total) {
    }

    private CdcDemo() {
    }

    static Result run(EmbeddedPlatform platform, Duration timeout) throws Exception {
        String customer = "demo-" + UUID.randomUUID().toString().substring(0, 8);
        String order = customer + "-o1";
        var registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        try (KafkaConsumer<String, OrderEvent> consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM)
                .consumer(platform.bootstrapServers(), Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)),
                new StringDeserializer(), new AvroDeserializer<>(registry, OrderEvent.class, false))) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDERS.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);

            long t0 = System.nanoTime();
            try (Connection c = platform.postgres().connect()) {
                c.setAutoCommit(false);
                exec(c, "INSERT INTO shop.customers (id, email, full_name, registered_at) VALUES (?, ?, 'Demo Customer', now())",
                        customer, customer + "@example.com");
                exec(c, "INSERT INTO shop.addresses (customer_id, line1, city, postal_code, country, updated_at)"
                        + " VALUES (?, 'Coolsingel 1', 'Rotterdam', '3011AA', 'NL', now())", customer);
                c.commit();
                exec(c, "INSERT INTO shop.orders (id, customer_id, status, currency, total, line_count, ship_line1, ship_city,"
                        + " ship_postal_code, ship_country, placed_at, updated_at) VALUES (?, ?, 'PLACED', 'EUR', 42.5050, 2,"
                        + " 'Coolsingel 1', 'Rotterdam', '3011AA', 'NL', now(), now())", order, customer);
                exec(c, "INSERT INTO shop.order_lines (order_id, line_no, sku, quantity, unit_price) VALUES (?, 1, 'sku-1', 1, 40.0000)", order);
                exec(c, "INSERT INTO shop.order_lines (order_id, line_no, sku, quantity, unit_price) VALUES (?, 2, 'sku-2', 1, 2.5050)", order);
                c.commit();
            }
            long deadline = t0 + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, OrderEvent> r : consumer.poll(Duration.ofMillis(100))) {
                    if (order.equals(r.key()) && r.value().getChange() instanceof OrderPlaced placed) {
                        return new Result(true, customer, order, Duration.ofNanos(System.nanoTime() - t0), placed.getTotal().getAmount());
                    }
                }
            }
            return new Result(false, customer, order, timeout, null);
        }
    }

    private static void exec(Connection c, String sql, String... args) throws java.sql.SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setString(i + 1, args[i]);
            }
            s.executeUpdate();
        }
    }
}
