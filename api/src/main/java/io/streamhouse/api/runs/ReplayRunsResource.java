package io.streamhouse.api.runs;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.api.http.Problems;
import io.streamhouse.control.RunResults;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.util.List;

/**
 * {@code GET /v1/replay/runs?limit=N}: the last rebuilds, backfills, promotes, discards and drills run against this
 * stack, newest first, each as the CLI recorded it in {@code <data>/results/} ({@code STREAMHOUSE_RESULTS_DIR}, set by
 * the launcher) with its verdict, exit code and {@code --json} summary (docs/replay.md). The directory comes from the
 * configuration only; the request chooses how many records, nothing else. An api not started by a launcher has no
 * such directory and answers 404.
 */
@Path("/v1/replay/runs")
@Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
public class ReplayRunsResource {
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = RunResults.KEEP;

    private final ApiConfig config;
    private final RunFiles files;

    public ReplayRunsResource(ApiConfig config, ObjectMapper json) {
        this.config = config;
        this.files = new RunFiles(json);
    }

    @GET
    @RolesAllowed(Roles.OPS)
    public Response runs(@QueryParam("limit") String limit) {
        int n;
        try {
            n = limit == null ? DEFAULT_LIMIT : Integer.parseInt(limit.trim());
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 1 || n > MAX_LIMIT) {
            return Problems.of(400, "Bad request", "limit must be a whole number from 1 to " + MAX_LIMIT,
                    List.of(new Problems.FieldError("limit", "a whole number from 1 to " + MAX_LIMIT + " (default " + DEFAULT_LIMIT + ")")));
        }
        if (config.resultsDir().isEmpty()) {
            return Problems.of(404, "No run records", "this api was started without STREAMHOUSE_RESULTS_DIR: the launcher sets it"
                    + " to <data>/results, where ./streamhouse replay and drill record their runs");
        }
        try {
            return Response.ok(files.newest(config.resultsDir().get(), n), MediaType.APPLICATION_JSON_TYPE).build();
        } catch (IOException e) {
            return Problems.notReady("the stack's run records", "the directory is unreadable just now");
        }
    }
}
