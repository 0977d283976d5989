package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.VehicleTelemetry;

import java.time.Instant;

/**
 * The JSON a vehicle or a parcel scanner sends to ingest for a generated event, as ingest's TelemetryParser and
 * ParcelScanParser read it (over HTTP, and for telemetry also as an MQTT payload). The generator's event id goes
 * along as {@code eventId}, so the event ingest writes carries the id the ground truth names.
 */
public final class EdgeJson {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** Body of {@code POST /v1/telemetry}, and payload on {@code fleet/{vehicleId}/telemetry}. */
    public static ObjectNode telemetry(VehicleTelemetry t) {
        ObjectNode body = F.objectNode();
        body.put("eventId", t.getEnvelope().getEventId());
        body.put("vehicleId", t.getVehicleId());
        body.put("occurredAt", t.getEnvelope().getOccurredAt().toString());
        body.putObject("position").put("lat", t.getPosition().getLat()).put("lon", t.getPosition().getLon());
        body.put("speedKmh", t.getSpeedKmh());
        body.put("coolantTempC", t.getCoolantTempC());
        body.put("odometerKm", t.getOdometerKm());
        if (!t.getFaultCodes().isEmpty()) {
            var codes = body.putArray("faultCodes");
            t.getFaultCodes().forEach(codes::add);
        }
        return body;
    }

    /** Body of {@code POST /v1/parcels/{parcelId}/scans} (the parcel id goes in the path). */
    public static ObjectNode parcelScan(ParcelScanned s) {
        ObjectNode body = F.objectNode();
        body.put("eventId", s.getEnvelope().getEventId());
        body.put("occurredAt", s.getEnvelope().getOccurredAt().toString());
        body.put("status", s.getStatus().name());
        if (s.getHubId() != null) {
            body.put("hubId", s.getHubId());
        }
        if (s.getVehicleId() != null) {
            body.put("vehicleId", s.getVehicleId());
        }
        if (s.getLocation() != null) {
            body.putObject("location").put("lat", s.getLocation().getLat()).put("lon", s.getLocation().getLon());
        }
        Instant promisedBy = s.getPromisedBy();
        if (promisedBy != null) {
            body.put("promisedBy", promisedBy.toString());
        }
        return body;
    }

    private EdgeJson() {
    }
}
