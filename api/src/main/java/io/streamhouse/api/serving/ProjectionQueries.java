package io.streamhouse.api.serving;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.state.AlertEntry;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.state.SubjectAlerts;
import io.streamhouse.domain.state.VehicleHealth;
import io.streamhouse.projections.serving.Assessments;
import io.streamhouse.projections.serving.ServingStores;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The query layer over the serving projections, for the REST resources and (later) MCP tools: each method answers
 * one question about one key, now or as of an instant, with its freshness. Parts that live under other keys (the
 * parcel's vehicle, alerts about a customer's cards) are looked up on their own stores, possibly on other
 * instances; if such a part cannot be had, the answer says so ({@code incomplete}) rather than failing.
 * The clock is used only as the reference instant of "now" for SLA risk.
 */
@ApplicationScoped
public class ProjectionQueries {
    private final Supplier<KeyRouter> routers;
    private final Clock clock;

    @Inject
    public ProjectionQueries(ServingStreams serving, Clock clock) {
        this(serving::router, clock);
    }

    /** @param routers this instance's router, or null while the projections are not started */
    public ProjectionQueries(Supplier<KeyRouter> routers, Clock clock) {
        this.routers = routers;
        this.clock = clock;
    }

    private KeyRouter router() {
        KeyRouter router = routers.get();
        if (router == null) {
            throw new IllegalStateException("serving projections not started");
        }
        return router;
    }

    public Answer<Views.ParcelView> parcel(String parcelId, Instant asOf) {
        if (routers.get() == null) {
            return new Answer.Unavailable<>("the serving projections are not running on this instance");
        }
        Lookup<ParcelTracking> lookup = router().lookup(ServingStores.PARCEL_TRACKING, parcelId, asOf, ParcelTracking.class);
        if (lookup instanceof Lookup.Found<ParcelTracking> found) {
            ParcelTracking p = found.value();
            List<AlertEntry> alerts = alertsOf(parcelId, "PARCEL", asOf, new ArrayList<>());
            Views.CarrierView carrier = null;
            if (p.getVehicleId() != null) {
                Lookup<VehicleHealth> v = router().lookup(ServingStores.VEHICLE_HEALTH, p.getVehicleId(), asOf, VehicleHealth.class);
                if (v instanceof Lookup.Found<VehicleHealth> vf) {
                    carrier = new Views.CarrierView(p.getVehicleId(), Views.Position.of(vf.value().getPosition()),
                            vf.value().getSpeedKmh(), vf.value().getLastReadingAt(), vf.freshness(), null);
                } else {
                    carrier = new Views.CarrierView(p.getVehicleId(), null, 0, null, null,
                            v instanceof Lookup.Unavailable<VehicleHealth> u ? u.reason() : "no telemetry from this vehicle yet");
                }
            }
            Instant reference = asOf != null ? asOf : clock.instant();
            String risk = Assessments.slaRisk(p, alerts, reference).name();
            Instant eta = p.getDeliveredAt() != null ? p.getDeliveredAt() : p.getPromisedBy();
            return new Answer.Ok<>(new Views.ParcelView(p.getParcelId(), p.getStatus(), p.getHubId(), Views.Position.of(p.getLocation()),
                    carrier, p.getPromisedBy(), eta, p.getDeliveredAt(), risk, p.getLastScanAt(), p.getScans(),
                    p.getHistory().stream().map(h -> new Views.ScanView(h.getEventId(), h.getOccurredAt(), h.getStatus(),
                            h.getHubId(), h.getVehicleId())).toList(),
                    alerts.stream().map(Views.AlertView::of).toList(), meta(asOf, found)));
        }
        return notFoundOrUnavailable(lookup, "parcel", parcelId, asOf);
    }

    public Answer<Views.VehicleView> vehicle(String vehicleId, Instant asOf) {
        if (routers.get() == null) {
            return new Answer.Unavailable<>("the serving projections are not running on this instance");
        }
        Lookup<VehicleHealth> lookup = router().lookup(ServingStores.VEHICLE_HEALTH, vehicleId, asOf, VehicleHealth.class);
        if (lookup instanceof Lookup.Found<VehicleHealth> found) {
            List<Views.AlertView> alerts = alertsOf(vehicleId, "VEHICLE", asOf, new ArrayList<>()).stream().map(Views.AlertView::of).toList();
            return new Answer.Ok<>(Views.VehicleView.of(found.value(), alerts, meta(asOf, found)));
        }
        return notFoundOrUnavailable(lookup, "vehicle", vehicleId, asOf);
    }

    public Answer<Views.CustomerView> customer(String customerId, Instant asOf) {
        if (routers.get() == null) {
            return new Answer.Unavailable<>("the serving projections are not running on this instance");
        }
        Lookup<CustomerState> lookup = router().lookup(ServingStores.CUSTOMER_STATE, customerId, asOf, CustomerState.class);
        if (lookup instanceof Lookup.Found<CustomerState> found) {
            CustomerState c = found.value();
            List<String> incomplete = new ArrayList<>();
            List<AlertEntry> alerts = new ArrayList<>(alertsOf(customerId, "CUSTOMER", asOf, incomplete));
            for (String card : c.getCardTokens()) {
                alerts.addAll(alertsOf(card, "CARD", asOf, incomplete));
            }
            alerts.sort(java.util.Comparator.comparing(AlertEntry::getOccurredAt));
            Assessments.Risk risk = Assessments.customerRisk(c, alerts);
            return new Answer.Ok<>(new Views.CustomerView(c.getCustomerId(), c.getEmail(), c.getFullName(), c.getRegisteredAt(),
                    c.getDeleted(), c.getOrderCount(), java.util.Map.copyOf(c.getSpend()),
                    c.getOrders().stream().map(o -> new Views.OrderView(o.getOrderId(), o.getStatus(),
                            o.getTotal() == null ? null : o.getTotal().getAmount().toPlainString(),
                            o.getTotal() == null ? null : o.getTotal().getCurrency(), o.getChangedAt())).toList(),
                    c.getDecisions().stream().map(d -> new Views.DecisionSummary(d.getTransactionId(), d.getCardToken(),
                            d.getOutcome(), List.copyOf(d.getRuleIds()), d.getRequestedAt())).toList(),
                    List.copyOf(c.getCardTokens()), alerts.stream().map(Views.AlertView::of).toList(),
                    new Views.RiskView(risk.level().name(), risk.reasons()), incomplete, meta(asOf, found)));
        }
        return notFoundOrUnavailable(lookup, "customer", customerId, asOf);
    }

    /**
     * A page of the alert feed, newest first.
     *
     * @param before a cursor from a previous page (exclusive), or null for the newest
     */
    public Answer<Views.AlertPage> alerts(String before, int limit) {
        if (routers.get() == null) {
            return new Answer.Unavailable<>("the serving projections are not running on this instance");
        }
        StateCodec.Page<Alert> page = router().feed(ServingStores.ALERT_FEED, before, limit, Alert.class);
        List<Views.FeedAlertView> alerts = page.entries().stream().map(e -> Views.FeedAlertView.of(e.getValue())).toList();
        String next = page.entries().size() < limit ? null : page.entries().get(page.entries().size() - 1).getKey();
        return new Answer.Ok<>(new Views.AlertPage(alerts, next, page.missingPartitions(), !page.missingPartitions().isEmpty()));
    }

    /**
     * A page of the recent decisions (the newest {@link ServingStores#DECISION_FEED_KEPT} of each partition), newest
     * first by when each was decided, gathered from the instances holding the decision feed's partitions.
     *
     * @param before a cursor from a previous page (exclusive), or null for the newest
     */
    public Answer<FeedPage<TransactionDecision>> decisions(String before, int limit) {
        if (routers.get() == null) {
            return new Answer.Unavailable<>("the serving projections are not running on this instance");
        }
        StateCodec.Page<TransactionDecision> page = router().feed(ServingStores.DECISION_FEED, before, limit, TransactionDecision.class);
        List<TransactionDecision> decisions = page.entries().stream().map(java.util.Map.Entry::getValue).toList();
        String next = page.entries().size() < limit ? null : page.entries().get(page.entries().size() - 1).getKey();
        return new Answer.Ok<>(new FeedPage<>(decisions, next, page.missingPartitions()));
    }

    /**
     * One page of a feed, newest first, before it is turned into its view.
     *
     * @param nextCursor        pass as {@code before} for the next (older) page; null when this page is the last
     * @param missingPartitions partitions no instance answered for (the page may lack their entries)
     */
    public record FeedPage<V>(List<V> entries, String nextCursor, List<Integer> missingPartitions) {
    }

    private List<AlertEntry> alertsOf(String subjectId, String kind, Instant asOf, List<String> incomplete) {
        Lookup<SubjectAlerts> lookup = router().lookup(ServingStores.SUBJECT_ALERTS, subjectId, asOf, SubjectAlerts.class);
        if (lookup instanceof Lookup.Found<SubjectAlerts> found) {
            return found.value().getAlerts().stream().filter(a -> kind.equals(a.getSubjectKind()))
                    .filter(a -> asOf == null || !a.getOccurredAt().isAfter(asOf)).toList();
        }
        if (lookup instanceof Lookup.Unavailable<SubjectAlerts> u) {
            incomplete.add("alerts on " + kind.toLowerCase() + " " + subjectId + ": " + u.reason());
        }
        return List.of();
    }

    private static Views.Meta meta(Instant asOf, Lookup.Found<?> found) {
        return new Views.Meta(asOf, found.version(), found.validTo(), found.freshness());
    }

    private static <T> Answer<T> notFoundOrUnavailable(Lookup<?> lookup, String what, String id, Instant asOf) {
        if (lookup instanceof Lookup.Unavailable<?> u) {
            return new Answer.Unavailable<>(u.reason());
        }
        return new Answer.NotFound<>(asOf == null ? "no " + what + " " + id + " is known (no event about it has been applied)"
                : "no " + what + " " + id + " was known as of " + asOf + " (or that is older than the history kept)");
    }
}
