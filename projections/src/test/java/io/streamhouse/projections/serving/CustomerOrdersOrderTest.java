package io.streamhouse.projections.serving;

import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.Money;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatus;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A customer's orders reach the customer-state fold through a repartition from several partitions: the events of one
 * order keep their order (one source partition per order id, one repartition partition per customer), but how the
 * orders interleave with each other, with the customer's own changes and with its decisions differs from run to run
 * (a second rebuild of a million generated events found 134 customers whose order lists differed). The fold's result
 * must be a function of the events alone: more orders than the list keeps, status changes and cancellations of
 * orders long evicted from it, a cancelled order deleted afterwards, one reinstated.
 */
class CustomerOrdersOrderTest {
    private static final String CUSTOMER = "c-1";
    private static final int ORDERS = 32;

    /** One generated order: its events in log order and what it comes to. */
    private record Order(String id, Instant placedAt, Money total, List<OrderEvent> events, String finalStatus) {
    }

    @Test
    void ordersCountAndSpendDoNotDependOnHowOrdersInterleave() {
        Random random = new Random(20261202L);
        List<Order> orders = new ArrayList<>();
        for (int i = 0; i < ORDERS; i++) {
            orders.add(order(random, i));
        }
        List<List<Object>> chains = new ArrayList<>();
        orders.forEach(o -> chains.add(new ArrayList<>(o.events())));
        chains.add(List.of(registered(), emailChanged()));
        for (int i = 0; i < 14; i++) {
            chains.add(List.of(decision(i)));
        }

        CustomerState first = fold(interleaving(chains, random));
        for (int round = 1; round < 300; round++) {
            CustomerState other = fold(interleaving(chains, random));
            assertThat(other).as("interleaving %d", round).isEqualTo(first);
        }

        assertThat(first.getOrderCount()).isEqualTo(ORDERS);
        List<Order> newest = orders.stream()
                .sorted(Comparator.comparing(Order::placedAt).thenComparing(Order::id))
                .skip(ORDERS - Folds.CUSTOMER_ORDERS).toList();
        assertThat(first.getOrders()).extracting(o -> o.getOrderId() + ":" + o.getStatus() + ":" + o.getTotal())
                .as("the %d newest placed, oldest first, each with its last status", Folds.CUSTOMER_ORDERS)
                .containsExactlyElementsOf(newest.stream().map(o -> o.id() + ":" + o.finalStatus() + ":" + o.total()).toList());
        Map<String, BigDecimal> spend = new TreeMap<>();
        orders.stream().filter(o -> !"CANCELLED".equals(o.finalStatus()))
                .forEach(o -> spend.merge(o.total().getCurrency(), o.total().getAmount(), BigDecimal::add));
        Map<String, BigDecimal> folded = new TreeMap<>();
        first.getSpend().forEach((currency, amount) -> folded.put(currency, new BigDecimal(amount)));
        assertThat(folded).as("spend: every order placed and not cancelled, evicted ones too")
                .usingComparatorForType(BigDecimal::compareTo, BigDecimal.class).isEqualTo(spend);
        assertThat(first.getEmail()).isEqualTo("alice.new@example.org");
        assertThat(first.getDecisions()).hasSize(Folds.CUSTOMER_DECISIONS);
        assertThat(first.getCardTokens()).hasSize(Folds.CUSTOMER_CARDS);
    }

    /**
     * An order placed within 40 minutes (so placements tie now and then), whose later changes come hours after: long
     * after newer orders may have pushed it out of the list.
     */
    private static Order order(Random random, int n) {
        String id = String.format("o-%02d", n);
        Instant placedAt = Times.T0.plus(Times.ONE_MINUTE.multipliedBy(random.nextInt(40)));
        Money total = Monies.of(BigDecimal.valueOf(100 + random.nextInt(20_000), 2), random.nextInt(4) == 0 ? "USD" : "EUR");
        List<OrderEvent> events = new ArrayList<>();
        events.add(event(id, 0, placedAt, OrderPlaced.newBuilder()
                .setLines(List.of(OrderLine.newBuilder().setSku("sku-" + n).setQuantity(1).setUnitPrice(total).build()))
                .setTotal(total).setShippingAddress(SampleEvents.address("Coolsingel 40", "Rotterdam")).setPaymentMethodId(null).build()));
        Instant at = placedAt;
        OrderStatus status = OrderStatus.PLACED;
        int path = random.nextInt(6);
        int steps = path <= 1 ? random.nextInt(5) : 1 + random.nextInt(2);
        OrderStatus[] progress = {OrderStatus.PAID, OrderStatus.PACKED, OrderStatus.SHIPPED, OrderStatus.DELIVERED};
        for (int i = 0; i < steps && i < progress.length; i++) {
            at = at.plus(Times.ONE_HOUR.multipliedBy(1 + random.nextInt(3)));
            events.add(event(id, events.size(), at, changed(status, progress[i], total)));
            status = progress[i];
        }
        if (path == 1 && steps >= 2 && random.nextBoolean()) { // the newest change delivered before the one it follows
            events.add(events.size() - 2, events.remove(events.size() - 1));
        }
        if (path >= 2) {
            at = at.plus(Times.ONE_HOUR.multipliedBy(1 + random.nextInt(3)));
            events.add(event(id, events.size(), at, cancelled(status, "changed mind", total)));
            status = OrderStatus.CANCELLED;
            if (path == 3) { // the row deleted afterwards: a second cancellation
                events.add(event(id, events.size(), at.plus(Times.ONE_MINUTE), cancelled(status, "deleted in the shop database", total)));
            } else if (path == 4) { // reinstated by the shop
                events.add(event(id, events.size(), at.plus(Times.ONE_MINUTE), changed(status, OrderStatus.PAID, total)));
                status = OrderStatus.PAID;
            }
        }
        return new Order(id, placedAt, total, events, status.name());
    }

    /** As the CDC normaliser writes them (OrderEvent v2): with the previous status and the order's total. */
    private static OrderStatusChanged changed(OrderStatus previous, OrderStatus current, Money total) {
        return OrderStatusChanged.newBuilder().setPrevious(previous).setCurrent(current).setTotal(total).build();
    }

    private static OrderCancelled cancelled(OrderStatus previous, String reason, Money total) {
        return OrderCancelled.newBuilder().setReason(reason).setPrevious(previous).setTotal(total).build();
    }

    private static OrderEvent event(String orderId, int n, Instant at, Object change) {
        return OrderEvent.newBuilder().setEnvelope(SampleEvents.envelope(orderId + "-e" + n, orderId, at, OrderEvent.class))
                .setOrderId(orderId).setCustomerId(CUSTOMER).setChange(change).build();
    }

    private static CustomerEvent registered() {
        return CustomerEvent.newBuilder().setEnvelope(SampleEvents.envelope("c-e0", CUSTOMER, Times.T0.minus(Times.ONE_HOUR), CustomerEvent.class))
                .setCustomerId(CUSTOMER).setChange(CustomerRegistered.newBuilder().setEmail("alice@example.org").setFullName("Alice")
                        .setAddress(null).setRegisteredAt(Times.T0.minus(Times.ONE_HOUR)).build()).build();
    }

    private static CustomerEvent emailChanged() {
        return CustomerEvent.newBuilder().setEnvelope(SampleEvents.envelope("c-e1", CUSTOMER, Times.T0.plus(Times.ONE_HOUR), CustomerEvent.class))
                .setCustomerId(CUSTOMER).setChange(CustomerEmailChanged.newBuilder().setPrevious("alice@example.org")
                        .setCurrent("alice.new@example.org").build()).build();
    }

    /** Decisions over 12 cards (more than the list of cards keeps), each on its own. */
    private static TransactionDecision decision(int i) {
        var tx = SampleEvents.transaction("tx-" + i, "tok_card_" + (i % 12), "12.50", "EUR", Merchants.GROCER_ROTTERDAM,
                Times.T0.plus(Times.ONE_MINUTE.multipliedBy((i * 7) % 40)));
        TransactionDecision d = Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))), tx.getEnvelope().getOccurredAt());
        return TransactionDecision.newBuilder(d).setCustomerId(CUSTOMER).build();
    }

    /** A random merge of the chains that keeps each chain's own order (a chain is picked in proportion to what it has left). */
    private static List<Object> interleaving(List<List<Object>> chains, Random random) {
        List<Deque<Object>> left = new ArrayList<>();
        int total = 0;
        for (List<Object> chain : chains) {
            left.add(new ArrayDeque<>(chain));
            total += chain.size();
        }
        List<Object> out = new ArrayList<>(total);
        for (int remaining = total; remaining > 0; remaining--) {
            int pick = random.nextInt(remaining);
            for (Deque<Object> chain : left) {
                if (pick < chain.size()) {
                    out.add(chain.poll());
                    break;
                }
                pick -= chain.size();
            }
        }
        return out;
    }

    private static CustomerState fold(List<Object> events) {
        CustomerState state = null;
        for (Object e : events) {
            state = Folds.customer(state, CUSTOMER, e);
        }
        return state;
    }
}
