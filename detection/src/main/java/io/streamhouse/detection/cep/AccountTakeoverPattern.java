package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.SubjectKind;
import org.apache.flink.types.Either;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * Account takeover: a customer's address or e-mail change, then an order of at least {@code highValue} placed within
 * {@code window}; when the address changed, the order ships to the new address (an attacker diverts goods). Every
 * change inside the window is part of the occurrence. Customer changes (keyed by customer id) and orders (keyed by
 * order id) meet here by customer id. Anchor: the order.
 */
public final class AccountTakeoverPattern implements SubjectPattern<Either<CustomerEvent, OrderEvent>> {

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.ACCOUNT_TAKEOVER;
    }

    @Override
    public Envelope envelope(Either<CustomerEvent, OrderEvent> event) {
        return event.isLeft() ? event.left().getEnvelope() : event.right().getEnvelope();
    }

    @Override
    public List<Finding> find(String customer, List<Either<CustomerEvent, OrderEvent>> events, PatternSettings settings,
                              Instant timeReached) {
        PatternSettings.AccountTakeover p = settings.accountTakeover();
        List<Finding> found = new ArrayList<>();
        Deque<CustomerEvent> changes = new ArrayDeque<>();
        for (Either<CustomerEvent, OrderEvent> e : events) {
            if (e.isLeft()) {
                Object change = e.left().getChange();
                if (change instanceof CustomerAddressChanged || change instanceof CustomerEmailChanged) {
                    changes.addLast(e.left());
                }
                continue;
            }
            OrderEvent order = e.right();
            if (!(order.getChange() instanceof OrderPlaced placed)
                    || placed.getTotal().getAmount().compareTo(p.highValue()) < 0) {
                continue;
            }
            Instant at = order.getEnvelope().getOccurredAt();
            Instant from = at.minus(p.window());
            List<CustomerEvent> inWindow = changes.stream()
                    .filter(c -> !c.getEnvelope().getOccurredAt().isBefore(from)).toList();
            if (inWindow.isEmpty()) {
                continue;
            }
            CustomerAddressChanged lastAddress = null;
            for (CustomerEvent c : inWindow) {
                if (c.getChange() instanceof CustomerAddressChanged a) {
                    lastAddress = a;
                }
            }
            if (lastAddress != null && !lastAddress.getCurrent().equals(placed.getShippingAddress())) {
                continue;
            }
            List<String> ids = new ArrayList<>(inWindow.stream().map(c -> c.getEnvelope().getEventId()).toList());
            ids.add(order.getEnvelope().getEventId());
            String kinds = String.join("+", inWindow.stream()
                    .map(c -> c.getChange() instanceof CustomerAddressChanged ? "address" : "email").toList());
            found.add(new Finding(order.getEnvelope().getEventId(), AlertType.ACCOUNT_TAKEOVER, SubjectKind.CUSTOMER,
                    customer, ids, inWindow.get(0).getEnvelope().getOccurredAt(), at,
                    Map.of("changes", kinds, "orderId", order.getOrderId(),
                            "orderTotal", placed.getTotal().getAmount().stripTrailingZeros().toPlainString(),
                            "highValue", p.highValue().toPlainString(), "window", p.window().toString())));
        }
        return found;
    }

    @Override
    public Duration retention(PatternSettings settings) {
        return settings.accountTakeover().window().multipliedBy(2);
    }

    @Override
    public Duration guard(PatternSettings settings) {
        return settings.accountTakeover().window();
    }

    @Override
    public int version(PatternSettings settings) {
        return settings.accountTakeover().version();
    }

    @Override
    public boolean enabled(PatternSettings settings) {
        return settings.accountTakeover().enabled();
    }
}
