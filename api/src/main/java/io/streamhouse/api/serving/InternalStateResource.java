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

    public InternalStateResource(ServingStreams serving) {
        this.serving = serving;
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
}
