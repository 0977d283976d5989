package io.streamhouse.api.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.api.http.Problems;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * {@code GET /v1/status}: the stack's status as {@code ./streamhouse status} reads it — each component's state, pid,
 * restarts and last exit, what the looks inside them found (the CEP job's state and lag, the Connect connectors'
 * tasks) and the health details (lag per processor, freshness, the lake's age, its last maintenance pass) — from the
 * status file the launcher's supervisor writes ({@code STREAMHOUSE_STATUS_FILE}). The launcher rewrites it whenever
 * any of that changes (it looks every 5 s), so {@code ageMillis} is the time since the last change, and
 * {@code launcherAlive} says whether the launcher that
 * wrote it still runs (its children run on its host): a dead launcher's file is history. An api not started by a
 * launcher has no such file and answers 404.
 */
@Path("/v1/status")
@Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
public class StatusResource {

    private final ApiConfig config;
    private final ObjectMapper json;
    private final Clock clock;

    public StatusResource(ApiConfig config, ObjectMapper json, Clock clock) {
        this.config = config;
        this.json = json;
        this.clock = clock;
    }

    @GET
    @RolesAllowed(Roles.OPS)
    public Response status() {
        if (config.statusFile().isEmpty()) {
            return Problems.of(404, "No stack status", "this api was started without STREAMHOUSE_STATUS_FILE: the launcher"
                    + " sets it to the status file its supervisor writes; without a launcher, ask your orchestrator");
        }
        java.nio.file.Path file = config.statusFile().get();
        JsonNode status;
        try {
            status = json.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            return Problems.notReady("the stack's status file", "not written yet");
        } catch (IOException e) {
            // Written by replacing the file, so a half-written one is not expected; if read mid-way, the next read works.
            return Problems.notReady("the stack's status file", "unreadable just now");
        }
        if (!(status instanceof ObjectNode object)) {
            return Problems.notReady("the stack's status file", "not a JSON object");
        }
        try {
            Instant updated = Instant.parse(object.path("updatedAt").asText());
            object.put("ageMillis", Math.max(0, Duration.between(updated, clock.instant()).toMillis()));
        } catch (DateTimeParseException e) {
            object.putNull("ageMillis");
        }
        long launcher = object.path("launcherPid").asLong(-1);
        object.put("launcherAlive", launcher > 0 && ProcessHandle.of(launcher).map(ProcessHandle::isAlive).orElse(false));
        return Response.ok(object, MediaType.APPLICATION_JSON_TYPE).build();
    }
}
