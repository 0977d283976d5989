package io.streamhouse.api.serving;

import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * What other instances forward to: this instance's own replica of a key or of feed partitions, never forwarded again
 * (see {@link KeyRouter}). Not part of the public API: do not expose /internal beyond the instances' network.
 */
@Path("/internal/v1")
@RolesAllowed(Roles.INTERNAL)
@Produces(MediaType.APPLICATION_JSON)
public class InternalStateResource {
    private final ServingStreams serving;
    private final org.apache.kafka.streams.KafkaStreams decisions;

    public InternalStateResource(ServingStreams serving, org.apache.kafka.streams.KafkaStreams decisions) {
        this.serving = serving;
        this.decisions = decisions;
    }

    /** The trivial baseline of the lookup benchmark: same app, same HTTP stack and JSON writer, no store. */
    @GET
    @Path("/ping")
    public java.util.Map<String, Object> ping() {
        return java.util.Map.of("pong", true);
    }

    @GET
    @Path("/state/{store}/{key}")
    public Response state(@PathParam("store") String store, @PathParam("key") String key, @QueryParam("asOf") String asOf) {
        return InternalAnswers.state(serving.router(), store, key, asOf)
                .map(body -> Response.ok(body).build()).orElseGet(() -> Response.status(503).build());
    }

    @GET
    @Path("/feed/{store}")
    public Response feed(@PathParam("store") String store, @QueryParam("before") String before,
                         @QueryParam("limit") String limit, @QueryParam("partitions") String partitions) {
        return InternalAnswers.feed(serving.router(), store, before, limit, partitions)
                .map(body -> Response.ok(body).build()).orElseGet(() -> Response.status(503).build());
    }

    /**
     * The outcomes of these transactions' decisions this instance's own replicas hold (active only unless
     * {@code standby=true}), with the partitions they answered for; never forwarded.
     */
    @GET
    @Path("/decisions/outcomes")
    public Response decisionOutcomes(@QueryParam("id") java.util.List<String> ids, @QueryParam("standby") boolean standby) {
        if (ids == null || ids.isEmpty() || ids.size() > DecisionOutcomes.BATCH || !ids.stream().allMatch(ServingResource::isId)) {
            return Response.status(503).build();
        }
        return Response.ok(DecisionOutcomes.encode(new DecisionReplica(decisions).read(ids, standby))).build();
    }

    /** This instance's own replica of a card's activity (active only unless {@code standby=true}); 503 when not held here. */
    @GET
    @Path("/cards/{cardToken}/activity")
    public Response cardActivity(@PathParam("cardToken") String cardToken, @QueryParam("standby") boolean standby) {
        KeyRouter router = serving.router();
        if (router == null || !ServingResource.isId(cardToken)) {
            return Response.status(503).build();
        }
        return new CardActivityReplica(decisions, router.self().host() + ":" + router.self().port()).read(cardToken, standby)
                .map(view -> Response.ok(CardActivityRouting.encode(view)).build())
                .orElseGet(() -> Response.status(503).build());
    }
}
