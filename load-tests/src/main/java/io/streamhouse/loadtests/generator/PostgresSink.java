package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatusChanged;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Writes generated customers and orders into the shop schema as the order service would, so change data capture
 * (Debezium) turns them back into {@code shop.customers} / {@code shop.orders} events: one transaction per event;
 * an order is written with its lines in one transaction ({@code line_count} set, so the normaliser knows when it has
 * them all).
 *
 * <p>The world's initial customers (registered before the run: no {@code CustomerRegistered} in the stream) are
 * written first, with an e-mail derived from their id and no address, since the generator knows no more of them.
 * An event whose aggregate is not in the database yet (delivered late on purpose: a status change before its
 * order, an order before its customer's sign-up) waits in memory and is applied right after the row it needs;
 * {@link #flush} fails, naming how many, if any still wait at the end. Loopback database only.
 */
public final class PostgresSink implements Sink {

    private final String url;
    private final Connection c;
    private final Map<String, Deque<GeneratedEvent>> waiting = new HashMap<>();
    private int applied;

    public PostgresSink(String jdbcUrl, String user, String password, List<CustomerInfo> world) throws IOException {
        java.net.URI uri = java.net.URI.create(jdbcUrl.replaceFirst("^jdbc:", ""));
        if (!"postgresql".equals(uri.getScheme()) || !Loopback.isLoopbackHost(uri.getHost())) {
            throw new IllegalArgumentException("the generator writes to a loopback PostgreSQL only"
                    + " (jdbc:postgresql://127.0.0.1:5432/db or localhost); '" + jdbcUrl + "' is not one");
        }
        this.url = jdbcUrl;
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null && !password.isEmpty()) {
            p.setProperty("password", password);
        }
        try {
            c = DriverManager.getConnection(jdbcUrl, p);
            c.setAutoCommit(false);
            seed(world);
        } catch (SQLException e) {
            throw new IOException("cannot write the shop schema at " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    private void seed(List<CustomerInfo> world) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO shop.customers (id, email, full_name, registered_at)"
                + " VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")) {
            int n = 0;
            for (CustomerInfo customer : world) {
                if (customer.signedUpDuringRun()) {
                    continue;
                }
                s.setString(1, customer.customerId());
                s.setString(2, customer.customerId() + "@customers.example");
                s.setString(3, customer.fullName());
                s.setTimestamp(4, Timestamp.from(customer.registeredAt()));
                s.addBatch();
                if (++n % 500 == 0) {
                    s.executeBatch();
                    c.commit();
                }
            }
            s.executeBatch();
            c.commit();
        }
    }

    @Override
    public String describe() {
        return "postgresql " + url;
    }

    @Override
    public Set<EventKind> supportedKinds() {
        return EnumSet.of(EventKind.CUSTOMER, EventKind.ORDER);
    }

    @Override
    public void send(GeneratedEvent event) throws IOException {
        try {
            String needs = apply(event);
            if (needs != null) {
                waiting.computeIfAbsent(needs, k -> new ArrayDeque<>()).add(event);
                return;
            }
            applied++;
            release(event.key());
        } catch (SQLException e) {
            throw new IOException("event " + event.eventId() + " (" + event.kind() + " " + event.key() + "): " + e.getMessage(), e);
        }
    }

    /** Applies what waited for {@code key}, and what waited for those, in arrival order. */
    private void release(String key) throws SQLException {
        Deque<String> ready = new ArrayDeque<>(List.of(key));
        while (!ready.isEmpty()) {
            Deque<GeneratedEvent> queue = waiting.remove(ready.poll());
            while (queue != null && !queue.isEmpty()) {
                GeneratedEvent e = queue.poll();
                String needs = apply(e);
                if (needs != null) {
                    waiting.computeIfAbsent(needs, k -> new ArrayDeque<>()).add(e);
                } else {
                    applied++;
                    ready.add(e.key());
                }
            }
        }
    }

    /** Writes one event in its own transaction; returns the key of the row it still needs, or null when written. */
    private String apply(GeneratedEvent event) throws SQLException {
        try {
            String needs = event.value() instanceof CustomerEvent ce ? customer(ce) : order((OrderEvent) event.value());
            if (needs == null) {
                c.commit();
            } else {
                c.rollback();
            }
            return needs;
        } catch (SQLException e) {
            c.rollback();
            throw e;
        }
    }

    private String customer(CustomerEvent e) throws SQLException {
        String id = e.getCustomerId();
        Object change = e.getChange();
        if (change instanceof CustomerRegistered r) {
            update("INSERT INTO shop.customers (id, email, full_name, registered_at) VALUES (?, ?, ?, ?)"
                    + " ON CONFLICT (id) DO NOTHING", id, r.getEmail(), r.getFullName(), Timestamp.from(r.getRegisteredAt()));
            if (r.getAddress() != null) {
                upsertAddress(id, r.getAddress(), r.getRegisteredAt());
            }
            return null;
        }
        if (!exists("SELECT 1 FROM shop.customers WHERE id = ?", id)) {
            return id;
        }
        if (change instanceof CustomerAddressChanged a) {
            upsertAddress(id, a.getCurrent(), e.getEnvelope().getOccurredAt());
        } else if (change instanceof CustomerEmailChanged m) {
            update("UPDATE shop.customers SET email = ? WHERE id = ?", m.getCurrent(), id);
        } else if (change instanceof CustomerDeleted) {
            update("DELETE FROM shop.customers WHERE id = ?", id);
        }
        return null;
    }

    private void upsertAddress(String customerId, Address a, Instant at) throws SQLException {
        update("INSERT INTO shop.addresses (customer_id, line1, line2, city, postal_code, country, updated_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (customer_id) DO UPDATE SET line1 = EXCLUDED.line1,"
                        + " line2 = EXCLUDED.line2, city = EXCLUDED.city, postal_code = EXCLUDED.postal_code,"
                        + " country = EXCLUDED.country, updated_at = EXCLUDED.updated_at",
                customerId, a.getLine1(), a.getLine2(), a.getCity(), a.getPostalCode(), a.getCountry(), Timestamp.from(at));
    }

    private String order(OrderEvent e) throws SQLException {
        String id = e.getOrderId();
        Object change = e.getChange();
        Timestamp at = Timestamp.from(e.getEnvelope().getOccurredAt());
        if (change instanceof OrderPlaced p) {
            if (!exists("SELECT 1 FROM shop.customers WHERE id = ?", e.getCustomerId())) {
                return e.getCustomerId();
            }
            Address ship = p.getShippingAddress();
            update("INSERT INTO shop.orders (id, customer_id, status, currency, total, line_count, payment_method_id,"
                            + " ship_line1, ship_line2, ship_city, ship_postal_code, ship_country, placed_at, updated_at)"
                            + " VALUES (?, ?, 'PLACED', ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                    id, e.getCustomerId(), p.getTotal().getCurrency(), p.getTotal().getAmount(), p.getLines().size(),
                    ship.getLine1(), ship.getLine2(), ship.getCity(), ship.getPostalCode(), ship.getCountry(), at, at);
            try (PreparedStatement s = c.prepareStatement("INSERT INTO shop.order_lines (order_id, line_no, sku, quantity,"
                    + " unit_price) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
                int lineNo = 0;
                for (OrderLine line : p.getLines()) {
                    s.setString(1, id);
                    s.setInt(2, ++lineNo);
                    s.setString(3, line.getSku());
                    s.setInt(4, line.getQuantity());
                    s.setBigDecimal(5, line.getUnitPrice().getAmount());
                    s.addBatch();
                }
                s.executeBatch();
            }
            return null;
        }
        if (!exists("SELECT 1 FROM shop.orders WHERE id = ?", id)) {
            return id;
        }
        if (change instanceof OrderStatusChanged sc) {
            update("UPDATE shop.orders SET status = ?, updated_at = ? WHERE id = ?", sc.getCurrent().name(), at, id);
        } else if (change instanceof OrderCancelled oc) {
            update("UPDATE shop.orders SET status = 'CANCELLED', cancel_reason = ?, updated_at = ? WHERE id = ?",
                    oc.getReason(), at, id);
        }
        return null;
    }

    private boolean exists(String sql, String id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, id);
            try (var rs = s.executeQuery()) {
                return rs.next();
            }
        }
    }

    private void update(String sql, Object... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            s.executeUpdate();
        }
    }

    /** Events written so far (each in its own transaction). */
    public int applied() {
        return applied;
    }

    @Override
    public void flush(long deadlineNanos) throws IOException {
        int stuck = waiting.values().stream().mapToInt(Deque::size).sum();
        if (stuck > 0) {
            List<String> keys = new ArrayList<>(waiting.keySet()).subList(0, Math.min(5, waiting.size()));
            throw new IOException(stuck + " events could not be written: the customer or order they change never"
                    + " appeared (waiting for " + keys + (waiting.size() > 5 ? ", ..." : "") + ")");
        }
    }

    @Override
    public void close() throws IOException {
        try {
            c.close();
        } catch (SQLException e) {
            throw new IOException(e);
        }
    }
}
