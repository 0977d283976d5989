package io.streamhouse.api.serving;

import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Multi;
import io.streamhouse.api.http.Problems;
import jakarta.ws.rs.DefaultValue;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestStreamElementType;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Key lookups on the serving projections: {@code GET /v1/parcels/{id}}, {@code /v1/customers/{id}},
 * {@code /v1/vehicles/{id}} (each with optional {@code ?asOf=<ISO-8601 instant>}), the paged alert feed
 * {@code /v1/alerts} and the live {@code /v1/alerts/stream} (server-sent events). Every state answer carries
 * {@code meta.freshness}: the event time of the last applied event, the lag behind the log head, and whether a
 * standby answered ({@code stale}).
 */
@Path("/v1")
@Produces(MediaType.APPLICATION_JSON)
public class ServingResource {

    private final ProjectionQueries queries;
    private final AlertBroadcaster broadcaster;
    private final SecurityIdentity identity;

    public ServingResource(ProjectionQueries queries, AlertBroadcaster broadcaster, SecurityIdentity identity) {
        this.queries = queries;
        this.broadcaster = broadcaster;
        this.identity = identity;
    }

    @GET
    @RolesAllowed({Roles.REVIEWER, Roles.OPS})
    @Path("/parcels/{id}")
    public Views.ParcelView parcel(@PathParam("id") String id, @QueryParam("asOf") String asOf) {
        return answer(queries.parcel(id, validated("parcel", id, asOf)));
    }

    @GET
    @RolesAllowed(Roles.REVIEWER)
    @Path("/customers/{id}")
    public Views.CustomerView customer(@PathParam("id") String id, @QueryParam("asOf") String asOf) {
        return CustomerContacts.forRoles(answer(queries.customer(id, validated("customer", id, asOf))), identity.getRoles());
    }

    @GET
    @RolesAllowed({Roles.REVIEWER, Roles.OPS})
    @Path("/vehicles/{id}")
    public Views.VehicleView vehicle(@PathParam("id") String id, @QueryParam("asOf") String asOf) {
        return answer(queries.vehicle(id, validated("vehicle", id, asOf)));
    }

    @GET
    @RolesAllowed({Roles.REVIEWER, Roles.OPS})
    @Path("/alerts")
    public Views.AlertPage alerts(@QueryParam("before") String before, @QueryParam("limit") @DefaultValue("50") String limit) {
        int n = FeedPaging.limit(limit);
        FeedPaging.before(before);
        return answer(queries.alerts(before, n));
    }

    @GET
    @RolesAllowed({Roles.REVIEWER, Roles.OPS})
    @Path("/alerts/stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<OutboundSseEvent> stream(@Context Sse sse) {
        // A subscriber that falls behind gets one "overflow" event and the end of its stream: it re-reads /v1/alerts,
        // then subscribes again.
        return LiveEvents.sse(sse, broadcaster.subscribe(), Views.FeedAlertView.class, "alerts", "/v1/alerts");
    }

    /** The instant asked for (null for now), or a 400 naming the bad field. */
    private static Instant validated(String what, String id, String asOf) {
        if (!isId(id)) {
            throw new WebApplicationException(Problems.of(400, "Bad " + what + " id", "id must be 1-64 letters, digits or . _ : -",
                    List.of(new Problems.FieldError("id", "invalid " + what + " id"))));
        }
        if (asOf == null) {
            return null;
        }
        try {
            return Instant.parse(asOf);
        } catch (DateTimeParseException e) {
            throw new WebApplicationException(Problems.of(400, "Bad asOf", "asOf must be an ISO-8601 instant such as 2026-03-02T09:00:00Z",
                    List.of(new Problems.FieldError("asOf", "not an ISO-8601 instant: '" + asOf + "'"))));
        }
    }

    /**
     * {@code [A-Za-z0-9][A-Za-z0-9._:-]{0,63}}, checked by hand: the regular expression was 3 % of a lookup's CPU.
     */
    static boolean isId(String id) {
        int n = id.length();
        if (n < 1 || n > 64) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            boolean alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!alnum && (i == 0 || (c != '.' && c != '_' && c != ':' && c != '-'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The view itself on success, so the JSON writer is chosen once at build time (returning a {@code Response} made
     * every answer negotiate its writer and media type: an eighth of a lookup's CPU, docs/benchmarks.md); a problem
     * document otherwise.
     */
    private static <T> T answer(Answer<T> answer) {
        if (answer instanceof Answer.Ok<T> ok) {
            return ok.view();
        }
        if (answer instanceof Answer.NotFound<T> nf) {
            throw new WebApplicationException(Problems.of(404, "Not found", nf.message()));
        }
        throw new WebApplicationException(Response.fromResponse(Problems.of(503, "Not available", ((Answer.Unavailable<T>) answer).message()))
                .header("Retry-After", "1").build());
    }
}
