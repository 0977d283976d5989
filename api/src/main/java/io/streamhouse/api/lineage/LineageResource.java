package io.streamhouse.api.lineage;

import io.streamhouse.api.http.Problems;
import io.streamhouse.lineage.LineageGraph;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code GET /v1/lineage}: the lineage graph (jobs and topics as nodes, reads and writes as edges) folded from every
 * processor's OpenLineage run events on {@code lineage.events}, so it shows the processors of every app and instance
 * that emitted, not only this api's. Metadata about the system, for operations: role {@code ops}.
 */
@Path("/v1/lineage")
@Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
public class LineageResource {
    private final LineageLog log;
    private final Clock clock;

    public LineageResource(LineageLog log, Clock clock) {
        this.log = log;
        this.clock = clock;
    }

    @GET
    @RolesAllowed(Roles.OPS)
    public Response graph() {
        LineageLog.Read read;
        try {
            read = log.readAll();
        } catch (LineageLog.Unavailable e) {
            return Response.fromResponse(Problems.of(503, "Lineage unavailable", e.getMessage()))
                    .header("Retry-After", "1").build();
        }
        // A run whose heartbeats stopped without an end (kill -9) counts as stale, not running.
        LineageGraph graph = LineageGraph.of(read.events(), clock.instant(), LineageRun.STALE_AFTER);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("nodes", graph.nodes());
        body.put("edges", graph.edges());
        body.put("events", read.events().size());
        body.put("skipped", read.skipped());
        return Response.ok(body).build();
    }
}
