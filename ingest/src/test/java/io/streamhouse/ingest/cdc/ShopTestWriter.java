package io.streamhouse.ingest.cdc;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/** Writes the shop tables as the order service does: one transaction per registration and per order with its lines. */
final class ShopTestWriter {

    private final Connection c;

    ShopTestWriter(Connection c) throws SQLException {
        this.c = c;
        c.setAutoCommit(false);
    }

    void register(String customerId, String email, Instant at) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO shop.customers (id, email, full_name, registered_at) VALUES (?, ?, ?, ?)")) {
            s.setString(1, customerId);
            s.setString(2, email);
            s.setString(3, "Customer " + customerId);
            s.setTimestamp(4, Timestamp.from(at));
            s.executeUpdate();
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO shop.addresses (customer_id, line1, city, postal_code,"
                + " country, updated_at) VALUES (?, 'Coolsingel 1', 'Rotterdam', '3011AA', 'NL', ?)")) {
            s.setString(1, customerId);
            s.setTimestamp(2, Timestamp.from(at));
            s.executeUpdate();
        }
        c.commit();
    }

    void changeEmail(String customerId, String email) throws SQLException {
        update("UPDATE shop.customers SET email = ? WHERE id = ?", email, customerId);
    }

    void moveTo(String customerId, String line1) throws SQLException {
        update("UPDATE shop.addresses SET line1 = ?, updated_at = now() WHERE customer_id = ?", line1, customerId);
    }

    void placeOrder(String orderId, String customerId, BigDecimal... unitPrices) throws SQLException {
        BigDecimal total = BigDecimal.ZERO;
        for (BigDecimal p : unitPrices) {
            total = total.add(p);
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO shop.orders (id, customer_id, status, currency, total,"
                + " line_count, ship_line1, ship_city, ship_postal_code, ship_country, placed_at, updated_at)"
                + " VALUES (?, ?, 'PLACED', 'EUR', ?, ?, 'Coolsingel 1', 'Rotterdam', '3011AA', 'NL', now(), now())")) {
            s.setString(1, orderId);
            s.setString(2, customerId);
            s.setBigDecimal(3, total);
            s.setInt(4, unitPrices.length);
            s.executeUpdate();
        }
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO shop.order_lines (order_id, line_no, sku, quantity, unit_price) VALUES (?, ?, ?, 1, ?)")) {
            for (int i = 0; i < unitPrices.length; i++) {
                s.setString(1, orderId);
                s.setInt(2, i + 1);
                s.setString(3, "sku-" + (i + 1));
                s.setBigDecimal(4, unitPrices[i]);
                s.addBatch();
            }
            s.executeBatch();
        }
        c.commit();
    }

    void setStatus(String orderId, String status) throws SQLException {
        update("UPDATE shop.orders SET status = ?, updated_at = now() WHERE id = ?", status, orderId);
    }

    void deleteOrder(String orderId) throws SQLException {
        update("DELETE FROM shop.orders WHERE id = ?", orderId);
    }

    void deleteCustomer(String customerId) throws SQLException {
        update("DELETE FROM shop.customers WHERE id = ?", customerId);
    }

    private void update(String sql, String... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setString(i + 1, args[i]);
            }
            if (s.executeUpdate() != 1) {
                throw new IllegalStateException("expected one row for " + sql + " with " + String.join(",", args));
            }
        }
        c.commit();
    }
}
