package io.streamhouse.ingest.parcels;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.http.EventRequests;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /v1/parcels/scans}: the scans of many parcels at once (a JSON array, or one object), each naming its
 * parcel in {@code parcelId}: what a hub's sorter or a handheld that was offline uploads. Each scan goes onto
 * {@code logistics.parcels.scanned} keyed by its parcel id, validated as {@code POST /v1/parcels/{id}/scans} validates
 * one; the batch is all-or-nothing at validation, like telemetry's.
 */
@Path("/v1/parcels/scans")
public class ParcelScanBatchResource {
    private final EventRequests requests;
    private final ParcelScanParser parser = new ParcelScanParser();

    public ParcelScanBatchResource(EventRequests requests) {
        this.requests = requests;
    }

    @POST
    @RolesAllowed(Roles.DEVICE)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response scans(String raw) throws JsonProcessingException {
        return requests.submit(raw, Topics.PARCEL_SCANS, "scans", true, parser::parseWithParcelId);
    }
}
