package io.streamhouse.ingest.parcels;

import io.streamhouse.domain.events.EventTimes;
import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.ingest.http.JsonFields;
import io.streamhouse.ingest.intake.Submission;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;

/**
 * Turns one JSON scan of a parcel into {@link ParcelScanned}, or records every reason why not. The parcel id comes
 * from the path and is checked like a body field. {@code UNKNOWN} is the schema's fallback for readers, never a
 * status a scanner may report. The event id is the client's {@code eventId} (a UUID) if given, else derived from
 * parcel id, status and {@code occurredAt} (to the millisecond), so a re-sent scan yields the same id.
 */
public final class ParcelScanParser {
    static final String SOURCE = "ingest-http";
    private static final Set<String> FIELDS = Set.of("eventId", "occurredAt", "status", "hubId", "vehicleId", "location",
            "promisedBy");
    /** A scan of a batch names its parcel in the body. */
    private static final Set<String> BATCH_FIELDS = Set.of("parcelId", "eventId", "occurredAt", "status", "hubId", "vehicleId",
            "location", "promisedBy");

    /** @return the submission, or null when {@code fields} holds the errors */
    public Submission<ParcelScanned> parse(String parcelIdFromPath, JsonNode json, String path, Instant recordedAt,
                                           JsonFields fields) {
        int errorsBefore = fields.errors().size();
        String parcelId = parcelIdFromPath;
        if (parcelId == null || !JsonFields.ID.matcher(parcelId).matches()) {
            fields.error("parcelId", "the parcel id in the path " + JsonFields.ID_HINT);
            parcelId = null;
        } else if (CardNumbers.contains(parcelId)) {
            fields.error("parcelId", "the parcel id in the path must not hold a card number");
            parcelId = null;
        }
        if (json == null || !json.isObject()) {
            fields.error(path.isEmpty() ? "$" : path, "must be a JSON object");
            return null;
        }
        fields.rejectUnknown(json, path, FIELDS);
        return scan(parcelId, json, path, recordedAt, fields, errorsBefore);
    }

    /**
     * One scan of a batch ({@code POST /v1/parcels/scans}): as {@link #parse}, with the parcel named by the body's
     * {@code parcelId}.
     *
     * @return the submission, or null when {@code fields} holds the errors
     */
    public Submission<ParcelScanned> parseWithParcelId(JsonNode json, String path, Instant recordedAt, JsonFields fields) {
        int errorsBefore = fields.errors().size();
        if (json == null || !json.isObject()) {
            fields.error(path.isEmpty() ? "$" : path, "must be a JSON object");
            return null;
        }
        fields.rejectUnknown(json, path, BATCH_FIELDS);
        String parcelId = fields.text(json, path, "parcelId", true, 64, JsonFields.ID, JsonFields.ID_HINT);
        if (parcelId != null && CardNumbers.contains(parcelId)) {
            fields.error(JsonFields.join(path, "parcelId"), "must not hold a card number");
            parcelId = null;
        }
        return scan(parcelId, json, path, recordedAt, fields, errorsBefore);
    }

    private Submission<ParcelScanned> scan(String parcelId, JsonNode json, String path, Instant recordedAt, JsonFields fields,
                                           int errorsBefore) {
        String eventId = fields.eventId(json, path, "eventId");
        Instant occurredAt = fields.instant(json, path, "occurredAt", true);
        if (occurredAt != null && occurredAt.isAfter(recordedAt.plus(EventTimes.MAX_AHEAD))) {
            fields.error(JsonFields.join(path, "occurredAt"), "is more than " + EventTimes.MAX_AHEAD.toMinutes() + " minutes in the future");
        }
        ParcelStatus status = fields.enumValue(json, path, "status", true, ParcelStatus.class, Set.of(ParcelStatus.UNKNOWN));
        String hubId = fields.text(json, path, "hubId", false, 64, JsonFields.ID, JsonFields.ID_HINT);
        String vehicleId = fields.text(json, path, "vehicleId", false, 64, JsonFields.ID, JsonFields.ID_HINT);
        GeoPoint location = fields.geoPoint(json, path, "location", false);
        Instant promisedBy = fields.instant(json, path, "promisedBy", false);
        if (fields.errors().size() > errorsBefore) {
            return null;
        }
        Instant at = occurredAt.truncatedTo(ChronoUnit.MILLIS);
        boolean derived = eventId == null;
        String id = derived ? Envelopes.derivedEventId("parcel-scanned", parcelId + "|" + status + "|" + at) : eventId;
        var event = ParcelScanned.newBuilder()
                .setEnvelope(Envelopes.create(id, parcelId, at, recordedAt, SOURCE,
                        EventTypes.versionOf(ParcelScanned.class), null))
                .setParcelId(parcelId)
                .setStatus(status)
                .setHubId(hubId)
                .setVehicleId(vehicleId)
                .setLocation(location)
                .setPromisedBy(promisedBy == null ? null : promisedBy.truncatedTo(ChronoUnit.MILLIS))
                .build();
        return new Submission<>(parcelId, parcelId, id, derived ? "occurredAt" : "eventId", event);
    }
}
