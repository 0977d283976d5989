package io.streamhouse.api.mcp;

import io.quarkus.security.identity.SecurityIdentity;
import io.streamhouse.api.serving.Answer;
import io.streamhouse.api.serving.CustomerContacts;
import io.streamhouse.api.serving.Views;
import io.streamhouse.api.serving.ProjectionQueries;
import io.streamhouse.projections.serving.ServingStores;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.List;

/**
 * The MCP tools' view of the serving projections: the same {@link ProjectionQueries} the REST resources use, so an
 * agent gets the same answers (key routing to the owning instance, a standby's answer marked stale, freshness and
 * {@code asOf}) as {@code GET /v1/parcels/{id}} and friends, with a customer's contact fields masked for the roles
 * that do not need them ({@link CustomerContacts}).
 */
@ApplicationScoped
public class ProjectionQueriesAdapter implements ServingProjections {
    private final ProjectionQueries queries;
    private final SecurityIdentity identity;

    public ProjectionQueriesAdapter(ProjectionQueries queries, SecurityIdentity identity) {
        this.queries = queries;
        this.identity = identity;
    }

    static final List<Store> STORES = List.of(
            new Store(ServingStores.PARCEL_TRACKING, "each parcel's tracking: status, last scan, hub, location, the "
                    + "vehicle carrying it, promised-by time, recent scans; versioned (asOf within the history kept)",
                    "parcel id", "ParcelTracking (answered as the parcel view, joined with the vehicle and alerts)", "where_is_parcel"),
            new Store(ServingStores.CUSTOMER_STATE, "each customer's state: profile, orders, spend, cards, last decisions; "
                    + "versioned", "customer id", "CustomerState (answered with alerts and risk)", "customer_state"),
            new Store(ServingStores.VEHICLE_HEALTH, "each vehicle's last telemetry, position, alerts and maintenance due; "
                    + "versioned", "vehicle id", "VehicleHealth (answered with its alerts)", "vehicle_health"));

    static Result of(Answer<?> answer) {
        if (answer instanceof Answer.Ok<?> ok) {
            return new Found(ok.view());
        }
        if (answer instanceof Answer.NotFound<?> notFound) {
            return new Unknown(notFound.message());
        }
        return new Unavailable(((Answer.Unavailable<?>) answer).message());
    }

    @Override
    public Result parcel(String parcelId, Instant asOf) {
        return of(queries.parcel(parcelId, asOf));
    }

    @Override
    public Result customer(String customerId, Instant asOf) {
        Answer<Views.CustomerView> answer = queries.customer(customerId, asOf);
        if (answer instanceof Answer.Ok<Views.CustomerView> ok) {
            // Contact fields masked unless the caller's roles need them (CustomerContacts).
            return new Found(CustomerContacts.forRoles(ok.view(), identity.getRoles()));
        }
        return of(answer);
    }

    @Override
    public Result vehicle(String vehicleId, Instant asOf) {
        return of(queries.vehicle(vehicleId, asOf));
    }

    @Override
    public Result alerts(String before, int limit) {
        return of(queries.alerts(before, limit));
    }

    @Override
    public List<Store> stores() {
        return STORES;
    }

    @Override
    public Result lookup(String store, String key, Instant asOf) {
        if (ServingStores.PARCEL_TRACKING.equals(store)) {
            return parcel(key, asOf);
        }
        if (ServingStores.CUSTOMER_STATE.equals(store)) {
            return customer(key, asOf);
        }
        if (ServingStores.VEHICLE_HEALTH.equals(store)) {
            return vehicle(key, asOf);
        }
        return new Unknown("no store " + store + " among " + STORES.stream().map(Store::name).toList());
    }
}
