package io.streamhouse.ingest.telemetry;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.http.EventRequests;
import jakarta.ws.rs.Consumes;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /v1/telemetry}: one reading (a JSON object) or a batch (a JSON array) from vehicles' telematics units,
 * onto {@code fleet.vehicles.telemetry} keyed by vehicle id. Units that speak MQTT use the bridge instead
 * ({@link io.streamhouse.ingest.mqtt.MqttTelemetryBridge}); both validate with {@link TelemetryParser}.
 */
@Path("/v1/telemetry")
public class TelemetryResource {
    static final String SOURCE = "ingest-http";
    private final EventRequests requests;
    private final TelemetryParser parser = new TelemetryParser(SOURCE);

    public TelemetryResource(EventRequests requests) {
        this.requests = requests;
    }

    @POST
    @RolesAllowed(Roles.DEVICE)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response submit(String raw) throws JsonProcessingException {
        return requests.submit(raw, Topics.VEHICLE_TELEMETRY, "readings", true,
                (item, path, recordedAt, fields) -> parser.parse(item, path, recordedAt, fields, null));
    }
}
