package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.junit.jupiter.api.Test;


import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The postgres target on the platform's shop schema: every generated order is in the database with all its lines
 * and its exact total, every sign-up is a customer, every customer's e-mail is the last one the stream gave, even
 * though about 10 % of the events arrive out of order.
 */
class PostgresSinkIT {

    @Test
    void ordersAndCustomersLandInTheShopSchemaAsTheOrderServiceWritesThem() throws Exception {
        EmbeddedPlatform platform = SharedPlatform.get();
        Generation g = Generator.generate(GeneratorConfig.defaults(91, 4_000));
        var kinds = EnumSet.of(EventKind.CUSTOMER, EventKind.ORDER);
        long sent;
        try (PostgresSink sink = new PostgresSink(platform.postgres().jdbcUrl(), platform.postgres().user(),
                platform.postgres().password(), g.customers())) {
            var result = SinkRun.send(g, sink, kinds, Duration.ofSeconds(120), null);
            sent = result.sent();
            assertThat(sink.applied()).isEqualTo(sent);
        }
        assertThat(sent).isEqualTo(g.events().stream().filter(e -> kinds.contains(e.kind())).count()).isPositive();

        Map<String, OrderPlaced> placed = new HashMap<>();
        Map<String, String> lastEmail = new HashMap<>();
        g.events().stream().sorted(java.util.Comparator.comparing(GeneratedEvent::occurredAt)).forEach(e -> {
            if (e.value() instanceof OrderEvent o && o.getChange() instanceof OrderPlaced p) {
                placed.put(o.getOrderId(), p);
            } else if (e.value() instanceof CustomerEvent c && c.getChange() instanceof CustomerRegistered r) {
                lastEmail.put(c.getCustomerId(), r.getEmail());
            } else if (e.value() instanceof CustomerEvent c && c.getChange() instanceof CustomerEmailChanged m) {
                lastEmail.put(c.getCustomerId(), m.getCurrent());
            }
        });
        assertThat(placed).isNotEmpty();
        try (Connection c = platform.postgres().connect()) {
            for (var e : placed.entrySet()) {
                try (PreparedStatement s = c.prepareStatement("SELECT o.total, o.line_count, (SELECT count(*) FROM"
                        + " shop.order_lines l WHERE l.order_id = o.id) FROM shop.orders o WHERE o.id = ?")) {
                    s.setString(1, e.getKey());
                    try (ResultSet rs = s.executeQuery()) {
                        assertThat(rs.next()).as("order %s in the database", e.getKey()).isTrue();
                        assertThat(rs.getBigDecimal(1)).isEqualTo(e.getValue().getTotal().getAmount().setScale(4));
                        assertThat(rs.getInt(2)).isEqualTo(e.getValue().getLines().size());
                        assertThat(rs.getInt(3)).isEqualTo(e.getValue().getLines().size());
                    }
                }
            }
            for (var e : lastEmail.entrySet()) {
                try (PreparedStatement s = c.prepareStatement("SELECT email FROM shop.customers WHERE id = ?")) {
                    s.setString(1, e.getKey());
                    try (ResultSet rs = s.executeQuery()) {
                        if (rs.next()) { // a customer deleted during the run is gone, which is right
                            assertThat(rs.getString(1)).as("e-mail of %s", e.getKey()).isEqualTo(e.getValue());
                        }
                    }
                }
            }
        }
    }

    @Test
    void refusesANonLoopbackDatabase() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new PostgresSink(
                "jdbc:postgresql://db.example.com:5432/shop", "u", "", java.util.List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loopback");
    }
}
