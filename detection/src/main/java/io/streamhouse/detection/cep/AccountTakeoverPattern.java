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
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.topic.Topics;
import org.apache.flink.types.Either;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Account takeover: a customer's address or e-mail change, then an order of at least {@code highValue} placed within
 * {@code window}; when the address changed, the order ships to the new address (an attacker diverts goods). Every
 * change inside the window is part of the occurrence. Customer changes (keyed by customer id) and orders (keyed by
 * order id) meet here by customer id. Anchor: the order.
 *
 * <p>Kept per customer, for {@code 2 × window}: address changes (the new address), e-mail changes, and orders of at
 * least {@code highValue} (total, shipping address, order id). Other changes and smaller orders are not kept.
 */
public final class AccountTakeoverPattern implements SubjectPattern<Either<CustomerEvent, OrderEvent>> {
    static final String ADDRESS = "address";
    private static final String EMAIL = "email";
    static final String ORDER = "order";

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.ACCOUNT_TAKEOVER;
    }

    @Override
    public Envelope envelope(Either<CustomerEvent, OrderEvent> event) {
        return event.isLeft() ? event.left().getEnvelope() : event.right().getEnvelope();
    }

    @Override
    public String subject(Either<CustomerEvent, OrderEvent> e) {
        return e.isLeft() ? e.left().getCustomerId() : e.right().getCustomerId();
    }

    @Override
    public Optional<CepFact> factOf(Either<CustomerEvent, OrderEvent> e) {
        if (e.isLeft()) {
            Object change = e.left().getChange();
            if (change instanceof CustomerAddressChanged a) {
                return Optional.of(SubjectPattern.fact(e.left().getEnvelope(), ADDRESS).setAddress(a.getCurrent()).build());
            }
            if (change instanceof CustomerEmailChanged) {
                return Optional.of(SubjectPattern.fact(e.left().getEnvelope(), EMAIL).build());
            }
            return Optional.empty();
        }
        OrderEvent order = e.right();
        if (!(order.getChange() instanceof OrderPlaced placed)) {
            return Optional.empty();
        }
        return Optional.of(SubjectPattern.fact(order.getEnvelope(), ORDER).setMoney(placed.getTotal())
                .setAddress(placed.getShippingAddress()).setRef(order.getOrderId()).build());
    }

    /** Orders come from the orders topic, address and e-mail changes from the customers topic. */
    @Override
    public String topicOf(CepFact fact, String anchorTopic) {
        return ORDER.equals(fact.getKind()) ? Topics.ORDERS.name() : Topics.CUSTOMERS.name();
    }

    /** Orders below {@code highValue} take part in nothing. */
    @Override
    public boolean keeps(CepFact fact, PatternSettings settings) {
        return !ORDER.equals(fact.getKind())
                || fact.getMoney().getAmount().compareTo(settings.accountTakeover().highValue()) >= 0;
    }

    @Override
    public List<Finding> find(String customer, List<CepFact> events, PatternSettings settings, Instant timeReached) {
        PatternSettings.AccountTakeover p = settings.accountTakeover();
        List<Finding> found = new ArrayList<>();
        Deque<CepFact> changes = new ArrayDeque<>();
        for (CepFact e : events) {
            if (!ORDER.equals(e.getKind())) {
                changes.addLast(e);
                continue;
            }
            if (e.getMoney().getAmount().compareTo(p.highValue()) < 0) {
                continue;
            }
            long from = e.getOccurredAtMs() - p.window().toMillis();
            List<CepFact> inWindow = changes.stream().filter(c -> c.getOccurredAtMs() >= from).toList();
            if (inWindow.isEmpty()) {
                continue;
            }
            CepFact lastAddress = null;
            for (CepFact c : inWindow) {
                if (ADDRESS.equals(c.getKind())) {
                    lastAddress = c;
                }
            }
            if (lastAddress != null && !lastAddress.getAddress().equals(e.getAddress())) {
                continue;
            }
            List<String> ids = new ArrayList<>(inWindow.stream().map(CepFact::getEventId).toList());
            ids.add(e.getEventId());
            String kinds = String.join("+", inWindow.stream().map(CepFact::getKind).toList());
            found.add(new Finding(e.getEventId(), AlertType.ACCOUNT_TAKEOVER, SubjectKind.CUSTOMER,
                    customer, ids, SubjectPattern.at(inWindow.get(0)), SubjectPattern.at(e),
                    Map.of("changes", kinds, "orderId", e.getRef(),
                            "orderTotal", e.getMoney().getAmount().stripTrailingZeros().toPlainString(),
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
