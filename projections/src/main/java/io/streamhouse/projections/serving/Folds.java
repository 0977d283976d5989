package io.streamhouse.projections.serving;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.DecisionReason;
import io.streamhouse.domain.event.Money;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatus;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.AlertEntry;
import io.streamhouse.domain.state.CustomerDecisionEntry;
import io.streamhouse.domain.state.CustomerOrderEntry;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.state.SubjectAlerts;
import io.streamhouse.domain.state.VehicleHealth;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How each projection folds one event into a key's state: pure functions of (previous state or null, event), with
 * time taken only from the event, so a replay of the log rebuilds the same states. Events arriving out of order are
 * folded into the newest state: lists are kept sorted by event time and "latest" fields follow the newest event time,
 * so a late scan never moves a parcel back.
 */
public final class Folds {
    static final int SUBJECT_ALERTS = 20;
    static final int CUSTOMER_ORDERS = 20;
    static final int CUSTOMER_DECISIONS = 10;
    static final int CUSTOMER_CARDS = 10;

    /**
     * The parcel's state after a scan. Its recent scans are kept apart ({@link ParcelScans}), which is also where a
     * repeated scan is recognised; here only an immediate repeat of the newest one is. The state's {@code history}
     * stays empty (states written before the split are emptied by {@link ParcelScans.Log} first).
     */
    public static ParcelTracking parcel(ParcelTracking previous, ParcelScanned scan) {
        Instant at = scan.getEnvelope().getOccurredAt();
        String eventId = scan.getEnvelope().getEventId();
        if (previous != null && previous.getLastEventId().equals(eventId)) {
            return previous;
        }
        boolean newest = previous == null || !at.isBefore(previous.getLastScanAt());
        ParcelTracking.Builder next = previous == null
                ? ParcelTracking.newBuilder().setParcelId(scan.getParcelId()).setScans(0)
                : carriedOver(previous);
        next.setHistory(List.of()).setScans(next.getScans() + 1);
        if (scan.getPromisedBy() != null && (newest || next.getPromisedBy() == null)) {
            next.setPromisedBy(scan.getPromisedBy());
        }
        if (scan.getStatus() == ParcelStatus.DELIVERED && next.getDeliveredAt() == null) {
            next.setDeliveredAt(at);
        }
        if (newest) {
            next.setStatus(scan.getStatus().name()).setLastScanAt(at).setLastEventId(eventId);
            if (scan.getHubId() != null) {
                next.setHubId(scan.getHubId());
            }
            if (scan.getLocation() != null) {
                next.setLocation(scan.getLocation());
            }
            next.setVehicleId(carrier(scan, previous));
        }
        return next.build();
    }

    /**
     * A builder holding the previous state's fields as they are. {@code newBuilder(previous)} would deep-copy every
     * field on each scan (it was the largest cost of this fold under load while the history lived in the state, JFR).
     * Sharing is safe because states are never mutated once built (lists are replaced, never changed in place).
     */
    static ParcelTracking.Builder carriedOver(ParcelTracking previous) {
        return ParcelTracking.newBuilder().setParcelId(previous.getParcelId()).setStatus(previous.getStatus())
                .setHubId(previous.getHubId()).setVehicleId(previous.getVehicleId()).setLocation(previous.getLocation())
                .setPromisedBy(previous.getPromisedBy()).setDeliveredAt(previous.getDeliveredAt())
                .setLastScanAt(previous.getLastScanAt()).setLastEventId(previous.getLastEventId())
                .setScans(previous.getScans()).setHistory(previous.getHistory());
    }

    /**
     * As {@link #carriedOver(ParcelTracking)}, for a customer: {@code newBuilder(previous)} deep-copies its orders,
     * decisions and maps on every event (a tenth of a rebuild's stream thread, JFR). The customer fold replaces those
     * lists and maps, never changes them in place.
     */
    static CustomerState.Builder carriedOver(CustomerState previous) {
        return CustomerState.newBuilder().setCustomerId(previous.getCustomerId()).setEmail(previous.getEmail())
                .setFullName(previous.getFullName()).setRegisteredAt(previous.getRegisteredAt()).setDeleted(previous.getDeleted())
                .setOrderCount(previous.getOrderCount()).setSpend(previous.getSpend()).setOrders(previous.getOrders())
                .setDecisions(previous.getDecisions()).setCardTokens(previous.getCardTokens())
                .setCardLastSeenAt(previous.getCardLastSeenAt()).setLastEventId(previous.getLastEventId())
                .setLastEventAt(previous.getLastEventAt());
    }

    /** The vehicle carrying the parcel after this scan: named by the scan, kept while on the road, none at rest. */
    private static String carrier(ParcelScanned scan, ParcelTracking previous) {
        if (scan.getVehicleId() != null) {
            return scan.getVehicleId();
        }
        switch (scan.getStatus()) {
            case LOADED:
            case IN_TRANSIT:
            case OUT_FOR_DELIVERY:
                return previous == null ? null : previous.getVehicleId();
            default:
                return null;
        }
    }

    public static VehicleHealth vehicle(VehicleHealth previous, VehicleTelemetry reading) {
        Instant at = reading.getEnvelope().getOccurredAt();
        if (previous != null && previous.getLastEventId().equals(reading.getEnvelope().getEventId())) {
            return previous;
        }
        double maxCoolant = previous == null ? reading.getCoolantTempC()
                : Math.max(previous.getMaxCoolantTempC(), reading.getCoolantTempC());
        long readings = previous == null ? 1 : previous.getReadings() + 1;
        if (previous != null && at.isBefore(previous.getLastReadingAt())) {
            return VehicleHealth.newBuilder(previous).setReadings(readings).setMaxCoolantTempC(maxCoolant).build();
        }
        return VehicleHealth.newBuilder()
                .setVehicleId(reading.getVehicleId()).setPosition(reading.getPosition()).setSpeedKmh(reading.getSpeedKmh())
                .setCoolantTempC(reading.getCoolantTempC()).setOdometerKm(reading.getOdometerKm())
                .setFaultCodes(new ArrayList<>(reading.getFaultCodes())).setLastReadingAt(at)
                .setLastEventId(reading.getEnvelope().getEventId()).setReadings(readings).setMaxCoolantTempC(maxCoolant)
                .build();
    }

    public static SubjectAlerts alerts(SubjectAlerts previous, Alert alert) {
        Instant at = alert.getEnvelope().getOccurredAt();
        List<AlertEntry> alerts = previous == null ? new ArrayList<>() : new ArrayList<>(previous.getAlerts());
        if (alerts.stream().anyMatch(a -> a.getAlertId().equals(alert.getAlertId()))) {
            return previous;
        }
        alerts.add(AlertEntry.newBuilder().setAlertId(alert.getAlertId()).setType(alert.getType().name())
                .setCategory(alert.getCategory().name()).setSeverity(alert.getSeverity().name())
                .setSubjectKind(alert.getSubject().getKind().name()).setPatternId(alert.getPatternId())
                .setSummary(alert.getSummary()).setOccurredAt(at).build());
        alerts.sort(Comparator.comparing(AlertEntry::getOccurredAt).thenComparing(AlertEntry::getAlertId));
        if (alerts.size() > SUBJECT_ALERTS) {
            alerts = new ArrayList<>(alerts.subList(alerts.size() - SUBJECT_ALERTS, alerts.size()));
        }
        Instant last = previous == null || at.isAfter(previous.getLastEventAt()) ? at : previous.getLastEventAt();
        return SubjectAlerts.newBuilder().setSubjectId(alert.getSubject().getId()).setAlerts(alerts).setLastEventAt(last).build();
    }

    /** Customer state from its three inputs (customer changes, orders and decisions, the last two re-keyed by customer). */
    public static CustomerState customer(CustomerState previous, String customerId, Object event) {
        CustomerState.Builder next = previous == null
                ? CustomerState.newBuilder().setCustomerId(customerId).setLastEventId("").setLastEventAt(Instant.EPOCH)
                        .setOrderCount(0).setSpend(new HashMap<>()).setOrders(new ArrayList<>())
                        .setDecisions(new ArrayList<>()).setCardTokens(new ArrayList<>()).setCardLastSeenAt(new java.util.HashMap<>())
                : carriedOver(previous);
        String eventId;
        Instant at;
        if (event instanceof CustomerEvent) {
            CustomerEvent e = (CustomerEvent) event;
            eventId = e.getEnvelope().getEventId();
            at = e.getEnvelope().getOccurredAt();
            applyCustomer(next, e.getChange());
        } else if (event instanceof OrderEvent) {
            OrderEvent e = (OrderEvent) event;
            eventId = e.getEnvelope().getEventId();
            at = e.getEnvelope().getOccurredAt();
            applyOrder(next, e, at);
        } else if (event instanceof TransactionDecision) {
            TransactionDecision d = (TransactionDecision) event;
            eventId = d.getEnvelope().getEventId();
            at = d.getEnvelope().getOccurredAt();
            applyDecision(next, d);
        } else {
            throw new IllegalArgumentException("not a customer input: " + (event == null ? "null" : event.getClass().getName()));
        }
        // Ties (events of one instant from different inputs) go to the greater event id, not to the first to arrive.
        if (previous == null || at.isAfter(next.getLastEventAt())
                || (at.equals(next.getLastEventAt()) && eventId.compareTo(next.getLastEventId()) > 0)) {
            next.setLastEventAt(at).setLastEventId(eventId);
        }
        return next.build();
    }

    private static void applyCustomer(CustomerState.Builder next, Object change) {
        if (change instanceof CustomerRegistered) {
            CustomerRegistered r = (CustomerRegistered) change;
            next.setEmail(r.getEmail()).setFullName(r.getFullName()).setRegisteredAt(r.getRegisteredAt()).setDeleted(false);
        } else if (change instanceof CustomerEmailChanged) {
            next.setEmail(((CustomerEmailChanged) change).getCurrent());
        } else if (change instanceof CustomerDeleted) {
            next.setDeleted(true);
        }
        // An address change does not change anything this projection shows (the decision profile keeps it).
    }

    /**
     * A customer's orders come from {@code shop.orders} (keyed by order id) through the repartition by customer id.
     * The events of ONE order stay in their log order: they share a source partition (key = order id, written in
     * commit order by the one CDC normaliser task), which one task reads in offset order and re-sends, in that order,
     * through its one producer to the one repartition partition of the customer, read again in offset order. Orders
     * from different source partitions interleave differently from run to run, so nothing here may depend on that:
     * <ul>
     *   <li>the list is the {@value #CUSTOMER_ORDERS} orders ranked highest by placement (placedAt, then order id),
     *       among all placements seen. An order ranked out never returns (ranks are only beaten by more placements),
     *       so a change of an order not listed leaves the list alone, and a listed order has seen every change of its
     *       own since its placement;</li>
     *   <li>{@code orderCount} counts placements; {@code spend} is a sum of per-event amounts, each from the event
     *       alone: + total on placement, − total on a cancellation of an order not already cancelled, + total on a
     *       change away from CANCELLED. Cancellations and changes carry the order's total and previous status (OrderEvent
     *       v2), so an order long out of the list is still taken off. v1 events carry neither: for them the listed
     *       entry is used, and a v1 cancellation of an order no longer listed cannot change spend.</li>
     * </ul>
     * An order whose placement is on the log after one of its own changes (CDC never does this; the generator's late
 * deliveries can) is listed from its placement on, without the changes logged before it: still the same result for
 * the same log. A repeated placement of a listed order counts once; a repeat of an order's events once it is ranked out is not
     * recognised (that would need every order id ever seen): the log holds each event once (the CDC normaliser drops
     * repeats, and every hop is exactly-once).
     */
    private static void applyOrder(CustomerState.Builder next, OrderEvent e, Instant at) {
        List<CustomerOrderEntry> orders = next.getOrders();
        CustomerOrderEntry known = orders.stream().filter(o -> o.getOrderId().equals(e.getOrderId())).findFirst().orElse(null);
        Object change = e.getChange();
        if (change instanceof OrderPlaced placed) {
            if (known != null) {
                return; // placed twice (a replayed CDC event): counted once
            }
            Money total = placed.getTotal();
            next.setSpend(addedToSpend(next.getSpend(), total, false)).setOrderCount(next.getOrderCount() + 1);
            List<CustomerOrderEntry> ranked = new ArrayList<>(orders);
            ranked.add(CustomerOrderEntry.newBuilder().setOrderId(e.getOrderId()).setStatus("PLACED").setTotal(total)
                    .setChangedAt(at).setPlacedAt(at).build());
            ranked.sort(BY_PLACEMENT);
            next.setOrders(tail(ranked, CUSTOMER_ORDERS));
            return;
        }
        OrderStatus previous;
        Money carried;
        String status;
        if (change instanceof OrderCancelled cancelled) {
            previous = cancelled.getPrevious();
            carried = cancelled.getTotal();
            status = OrderStatus.CANCELLED.name();
        } else {
            OrderStatusChanged changed = (OrderStatusChanged) change;
            previous = changed.getPrevious();
            carried = changed.getTotal();
            status = changed.getCurrent().name();
        }
        String before = previous != null ? previous.name() : known != null ? known.getStatus() : null;
        Money total = carried != null ? carried : known != null ? known.getTotal() : null;
        boolean wasCancelled = OrderStatus.CANCELLED.name().equals(before);
        boolean isCancelled = OrderStatus.CANCELLED.name().equals(status);
        if (total != null && wasCancelled != isCancelled) {
            next.setSpend(addedToSpend(next.getSpend(), total, isCancelled));
        }
        // The listed status follows the order's newest change by event time: a change delivered late (the generator
        // delays some events on purpose) does not move the order back.
        if (known != null && !at.isBefore(known.getChangedAt())) {
            List<CustomerOrderEntry> updated = new ArrayList<>(orders);
            updated.set(updated.indexOf(known), CustomerOrderEntry.newBuilder(known).setStatus(status).setChangedAt(at).build());
            next.setOrders(updated);
        }
    }

    /** Rank of a listed order: its placement, ties by id (entries written before placedAt existed hold the epoch: their last change). */
    private static final Comparator<CustomerOrderEntry> BY_PLACEMENT = Comparator
            .comparing((CustomerOrderEntry o) -> Instant.EPOCH.equals(o.getPlacedAt()) ? o.getChangedAt() : o.getPlacedAt())
            .thenComparing(CustomerOrderEntry::getOrderId);

    /** Spend with {@code total} added (or taken off): a sum, so the same whatever order the amounts come in. */
    private static Map<String, String> addedToSpend(Map<String, String> spend, Money total, boolean takeOff) {
        Map<String, String> next = new HashMap<>(spend);
        BigDecimal amount = takeOff ? total.getAmount().negate() : total.getAmount();
        next.merge(total.getCurrency(), plain(amount), (a, b) -> plain(new BigDecimal(a).add(new BigDecimal(b))));
        return next;
    }

    private static void applyDecision(CustomerState.Builder next, TransactionDecision d) {
        List<CustomerDecisionEntry> decisions = new ArrayList<>(next.getDecisions());
        if (decisions.stream().anyMatch(x -> x.getTransactionId().equals(d.getTransactionId()))) {
            return;
        }
        decisions.add(CustomerDecisionEntry.newBuilder().setTransactionId(d.getTransactionId()).setCardToken(d.getCardToken())
                .setOutcome(d.getOutcome().name())
                .setRuleIds(d.getReasons().stream().map(DecisionReason::getRuleId).toList())
                .setRequestedAt(d.getRequestedAt()).build());
        // A customer's decisions arrive through a repartition from several partitions, in an order that differs from
        // run to run: the order kept here depends on event time (ties by id), never on arrival, so a replay agrees.
        decisions.sort(Comparator.comparing(CustomerDecisionEntry::getRequestedAt).thenComparing(CustomerDecisionEntry::getTransactionId));
        List<CustomerDecisionEntry> kept = tail(decisions, CUSTOMER_DECISIONS);
        // Cards ordered by the event time of their newest decision (ties by token), the newest CUSTOMER_CARDS kept: the
        // result is the newest cards over every decision seen, whatever order the repartitions deliver them in (a card
        // is dropped only when as many cards have newer decisions, and those only get newer). Cards from a state written
        // before cardLastSeenAt existed count as seen at the epoch.
        java.util.Map<String, java.time.Instant> seen = new java.util.HashMap<>(next.getCardLastSeenAt());
        next.getCardTokens().forEach(card -> seen.putIfAbsent(card, java.time.Instant.EPOCH));
        seen.merge(d.getCardToken(), d.getRequestedAt(), (a, b) -> a.isAfter(b) ? a : b);
        List<String> cards = seen.keySet().stream()
                .sorted(Comparator.comparing((String card) -> seen.get(card)).thenComparing(Comparator.naturalOrder()))
                .toList();
        List<String> keptCards = tail(new ArrayList<>(cards), CUSTOMER_CARDS);
        java.util.Map<String, java.time.Instant> keptSeen = new java.util.HashMap<>();
        keptCards.forEach(card -> keptSeen.put(card, seen.get(card)));
        next.setDecisions(kept).setCardTokens(keptCards).setCardLastSeenAt(keptSeen);
    }

    private static <T> List<T> tail(List<T> list, int max) {
        return list.size() <= max ? list : new ArrayList<>(list.subList(list.size() - max, list.size()));
    }

    private static String plain(BigDecimal amount) {
        return amount.setScale(4, java.math.RoundingMode.UNNECESSARY).toPlainString();
    }

    private Folds() {
    }
}
