package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatus;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.events.Monies;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.streamhouse.loadtests.generator.Simulation.HOUR;
import static io.streamhouse.loadtests.generator.Simulation.MINUTE;

/**
 * The web shop: sign-ups, customers' contact changes and orders with their status changes; plants account takeover.
 * Normal traffic stays clear of it: a customer changes contact details at most once in two hours, and orders within
 * 65 minutes after a change stay below the high-value threshold. An order is paid with the customer's first card.
 */
final class ShopWorld {
    private final Simulation sim;
    private final SplittableRandom rnd;
    private final PatternRules rules;
    private final Customers customers;
    private final PaymentsWorld payments;
    private int orderSeq;

    ShopWorld(Simulation sim, Customers customers, PaymentsWorld payments) {
        this.sim = sim;
        this.rnd = sim.random();
        this.rules = sim.rules();
        this.customers = customers;
        this.payments = payments;
    }

    /** A new customer registers (CustomerRegistered) and gets cards; until then they do nothing. */
    void signUp() {
        if (customers.full()) {
            payments.normalPayment(false);
            return;
        }
        long now = sim.now();
        int c = customers.signUp(now, payments::issueCards);
        String id = customers.id(c);
        var event = CustomerEvent.newBuilder()
                .setEnvelope(sim.envelope(sim.nextEventId(), id, now, CustomerEvent.class))
                .setCustomerId(id)
                .setChange(CustomerRegistered.newBuilder().setEmail(customers.email(c))
                        .setFullName(customers.fullName(c)).setAddress(customers.address(c))
                        .setRegisteredAt(Instant.ofEpochMilli(now)).build())
                .build();
        sim.add(EventKind.CUSTOMER, id, event, now);
    }

    void normalCustomerChange() {
        long now = sim.now();
        for (int attempt = 0; attempt < 3; attempt++) {
            int c = rnd.nextInt(customers.active());
            if (now - customers.lastChange(c) >= 2 * HOUR) {
                if (rnd.nextBoolean()) {
                    changeAddress(c, now);
                } else {
                    changeEmail(c, now);
                }
                return;
            }
        }
        payments.normalPayment(false);
    }

    private String changeAddress(int c, long at) {
        int hub = rnd.nextDouble() < 0.7 ? customers.homeHub(c) : rnd.nextInt(RoadNetwork.HUBS.size());
        var previous = customers.move(c, hub, at);
        String id = customers.id(c);
        var event = CustomerEvent.newBuilder()
                .setEnvelope(sim.envelope(sim.nextEventId(), id, at, CustomerEvent.class))
                .setCustomerId(id)
                .setChange(CustomerAddressChanged.newBuilder().setPrevious(previous).setCurrent(customers.address(c))
                        .build())
                .build();
        return sim.add(EventKind.CUSTOMER, id, event, at);
    }

    private String changeEmail(int c, long at) {
        String previous = customers.changeEmail(c, at);
        String id = customers.id(c);
        var event = CustomerEvent.newBuilder()
                .setEnvelope(sim.envelope(sim.nextEventId(), id, at, CustomerEvent.class))
                .setCustomerId(id)
                .setChange(CustomerEmailChanged.newBuilder().setPrevious(previous).setCurrent(customers.email(c))
                        .build())
                .build();
        return sim.add(EventKind.CUSTOMER, id, event, at);
    }

    void normalOrder() {
        long now = sim.now();
        int c = rnd.nextInt(customers.active());
        boolean recentChange = now - customers.lastChange(c) < rules.takeoverWindow().toMillis() + 5 * MINUTE;
        List<OrderLine> lines = new ArrayList<>();
        if (recentChange) {
            lines.add(line(1, 500 + rnd.nextInt(19_500)));
        } else {
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                lines.add(line(1 + rnd.nextInt(3), 500 + rnd.nextInt(39_500)));
            }
        }
        order(c, lines, now, rnd.nextDouble() < 0.1);
    }

    void plantAccountTakeover() {
        long now = sim.now();
        int c = -1;
        for (int attempt = 0; attempt < 50 && c < 0; attempt++) {
            int candidate = rnd.nextInt(customers.active());
            if (now - customers.lastChange(candidate) >= 2 * HOUR) {
                c = candidate;
            }
        }
        if (c < 0) {
            payments.normalPayment(false);
            return;
        }
        int variant = rnd.nextInt(3);
        List<String> ids = new ArrayList<>();
        long at = now;
        if (variant != 0) {
            ids.add(changeEmail(c, at));
        }
        if (variant != 1) {
            if (!ids.isEmpty()) {
                at += MINUTE + rnd.nextLong(4 * MINUTE);
            }
            ids.add(changeAddress(c, at));
        }
        long orderAt = at + 5 * MINUTE + rnd.nextLong(45 * MINUTE);
        long minor = rules.takeoverHighValue().movePointRight(2).longValueExact();
        List<OrderLine> lines = List.of(line(1, minor + rnd.nextInt(150_000)));
        ids.add(order(c, lines, orderAt, false));
        sim.record(AlertType.ACCOUNT_TAKEOVER, SubjectKind.CUSTOMER, customers.id(c), ids, now, orderAt,
                Map.of("changes", variant == 0 ? "address" : variant == 1 ? "email" : "email+address"));
    }

    private OrderLine line(int quantity, long unitCents) {
        return OrderLine.newBuilder().setSku("sku-" + (1000 + rnd.nextInt(9000))).setQuantity(quantity)
                .setUnitPrice(Monies.of(BigDecimal.valueOf(unitCents, 2), "EUR")).build();
    }

    /** Places an order (shipped to the customer's current address) and its later status changes; returns the placement's id. */
    private String order(int c, List<OrderLine> lines, long at, boolean cancelled) {
        String orderId = "g" + sim.tag() + "-o-" + (orderSeq++);
        String customerId = customers.id(c);
        BigDecimal total = BigDecimal.ZERO;
        for (OrderLine l : lines) {
            total = total.add(l.getUnitPrice().getAmount().multiply(BigDecimal.valueOf(l.getQuantity())));
        }
        var placed = OrderEvent.newBuilder()
                .setEnvelope(sim.envelope(sim.nextEventId(), orderId, at, OrderEvent.class))
                .setOrderId(orderId).setCustomerId(customerId)
                .setChange(OrderPlaced.newBuilder().setLines(lines).setTotal(Monies.of(total, "EUR"))
                        .setShippingAddress(customers.address(c))
                        .setPaymentMethodId("pm-" + payments.token(customers.firstCard(c)))
                        .build())
                .build();
        String placedId = sim.add(EventKind.ORDER, orderId, placed, at);
        if (cancelled) {
            long t = at + 2 * MINUTE + rnd.nextLong(28 * MINUTE);
            sim.add(EventKind.ORDER, orderId, OrderEvent.newBuilder()
                    .setEnvelope(sim.envelope(sim.nextEventId(), orderId, t, OrderEvent.class))
                    .setOrderId(orderId).setCustomerId(customerId)
                    .setChange(OrderCancelled.newBuilder().setReason("customer request").setPrevious(OrderStatus.PLACED)
                            .setTotal(Monies.of(total, "EUR")).build()).build(), t);
            return placedId;
        }
        long t = at;
        OrderStatus previous = OrderStatus.PLACED;
        long[] after = {MINUTE + rnd.nextLong(9 * MINUTE), 20 * MINUTE + rnd.nextLong(100 * MINUTE),
                HOUR + rnd.nextLong(4 * HOUR)};
        OrderStatus[] next = {OrderStatus.PAID, OrderStatus.PACKED, OrderStatus.SHIPPED};
        for (int i = 0; i < next.length; i++) {
            t += after[i];
            sim.add(EventKind.ORDER, orderId, OrderEvent.newBuilder()
                    .setEnvelope(sim.envelope(sim.nextEventId(), orderId, t, OrderEvent.class))
                    .setOrderId(orderId).setCustomerId(customerId)
                    .setChange(OrderStatusChanged.newBuilder().setPrevious(previous).setCurrent(next[i])
                            .setTotal(Monies.of(total, "EUR")).build())
                    .build(), t);
            previous = next[i];
        }
        return placedId;
    }
}
