package io.streamhouse.ingest.telemetry;

import io.streamhouse.domain.events.EventTimes;
import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.ingest.http.JsonFields;
import io.streamhouse.ingest.intake.Submission;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns one JSON telemetry reading into {@link VehicleTelemetry}, or records every reason why not. Used by the HTTP
 * endpoint and the MQTT bridge alike, so both refuse the same readings for the same reasons.
 *
 * <p>Ranges are what a road vehicle can plausibly report, so that a broken sensor is caught at the edge: speed
 * 0..400 km/h, coolant -60..200 °C, odometer 0..10,000,000 km, fault codes OBD-II ({@code P0217}). The event id is
 * the client's {@code eventId} (a UUID) if given, else derived from vehicle id and {@code occurredAt} (to the
 * millisecond, what the event keeps): a unit re-sending a reading yields the same id.
 */
public final class TelemetryParser {
    static final Pattern FAULT_CODE = Pattern.compile("[PCBU][0-3][0-9A-F]{3}");
    static final int MAX_FAULT_CODES = 32;
    private static final Set<String> FIELDS = Set.of("eventId", "vehicleId", "occurredAt", "position", "speedKmh",
            "coolantTempC", "odometerKm", "faultCodes");

    private final String source;

    /** @param source the envelope's source, e.g. ingest-http or ingest-mqtt */
    public TelemetryParser(String source) {
        this.source = source;
    }

    /**
     * @param vehicleIdFromTopic the vehicle named by the MQTT topic, or null over HTTP: the body's vehicleId must then
     *                           match it or be absent
     * @return the submission, or null when {@code fields} holds the errors
     */
    public Submission<VehicleTelemetry> parse(JsonNode json, String path, Instant recordedAt, JsonFields fields,
                                              String vehicleIdFromTopic) {
        int errorsBefore = fields.errors().size();
        if (json == null || !json.isObject()) {
            fields.error(path.isEmpty() ? "$" : path, "must be a JSON object");
            return null;
        }
        fields.rejectUnknown(json, path, FIELDS);
        String eventId = fields.eventId(json, path, "eventId");
        String vehicleId = vehicleId(json, path, fields, vehicleIdFromTopic);
        Instant occurredAt = fields.instant(json, path, "occurredAt", true);
        if (occurredAt != null && occurredAt.isAfter(recordedAt.plus(EventTimes.MAX_AHEAD))) {
            fields.error(JsonFields.join(path, "occurredAt"), "is more than " + EventTimes.MAX_AHEAD.toMinutes() + " minutes in the future");
        }
        GeoPoint position = fields.geoPoint(json, path, "position", true);
        Double speed = fields.number(json, path, "speedKmh", true, 0, 400);
        Double coolant = fields.number(json, path, "coolantTempC", true, -60, 200);
        Double odometer = fields.number(json, path, "odometerKm", true, 0, 10_000_000);
        List<String> faultCodes = faultCodes(json, path, fields);
        if (fields.errors().size() > errorsBefore) {
            return null;
        }
        Instant at = occurredAt.truncatedTo(ChronoUnit.MILLIS);
        boolean derived = eventId == null;
        String id = derived ? Envelopes.derivedEventId("vehicle-telemetry", vehicleId + "@" + at) : eventId;
        var event = VehicleTelemetry.newBuilder()
                .setEnvelope(Envelopes.create(id, vehicleId, at, recordedAt, source,
                        EventTypes.versionOf(VehicleTelemetry.class), null))
                .setVehicleId(vehicleId)
                .setPosition(position)
                .setSpeedKmh(speed)
                .setCoolantTempC(coolant)
                .setOdometerKm(odometer)
                .setFaultCodes(faultCodes)
                .build();
        return new Submission<>(vehicleId, vehicleId, id, derived ? "occurredAt" : "eventId", event);
    }

    private static String vehicleId(JsonNode json, String path, JsonFields fields, String fromTopic) {
        String inBody = fields.text(json, path, "vehicleId", fromTopic == null, 64, JsonFields.ID, JsonFields.ID_HINT);
        if (fromTopic == null) {
            return inBody;
        }
        if (!JsonFields.ID.matcher(fromTopic).matches()) {
            fields.error(JsonFields.join(path, "vehicleId"), "the vehicle id in the MQTT topic " + JsonFields.ID_HINT);
            return null;
        }
        if (CardNumbers.contains(fromTopic)) {
            fields.error(JsonFields.join(path, "vehicleId"), "the vehicle id in the MQTT topic must not hold a card number");
            return null;
        }
        if (json.hasNonNull("vehicleId") && inBody != null && !inBody.equals(fromTopic)) {
            fields.error(JsonFields.join(path, "vehicleId"), "is '" + inBody + "' but the MQTT topic names vehicle '" + fromTopic + "'");
            return null;
        }
        return json.hasNonNull("vehicleId") ? inBody : fromTopic;
    }

    private static List<String> faultCodes(JsonNode json, String path, JsonFields fields) {
        String p = JsonFields.join(path, "faultCodes");
        JsonNode codes = json.get("faultCodes");
        List<String> result = new ArrayList<>();
        if (codes == null || codes.isNull()) {
            return result;
        }
        if (!codes.isArray() || codes.size() > MAX_FAULT_CODES) {
            fields.error(p, "must be an array of at most " + MAX_FAULT_CODES + " OBD-II codes, e.g. [\"P0217\"]");
            return result;
        }
        for (int i = 0; i < codes.size(); i++) {
            JsonNode c = codes.get(i);
            if (c.isTextual() && FAULT_CODE.matcher(c.asText()).matches()) {
                result.add(c.asText());
            } else {
                fields.error(p + "[" + i + "]", "must be an OBD-II code like P0217 (P, C, B or U, a digit 0-3, three hex digits)");
            }
        }
        return result;
    }
}
