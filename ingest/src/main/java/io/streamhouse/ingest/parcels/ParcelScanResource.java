package io.streamhouse.ingest.parcels;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.http.EventRequests;
import jakarta.ws.rs.Consumes;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /v1/parcels/{id}/scans}: one scan of one parcel (a JSON object; scanners send scans one by one), onto
 * {@code logistics.parcels.scanned} keyed by parcel id.
 */
@Path("/v1/parcels/{id}/scans")
public class ParcelScanResource {
    private final EventRequests requests;
    private final ParcelScanParser parser = new ParcelScanParser();

    public ParcelScanResource(EventRequests requests) {
        this.requests = requests;
    }

    @POST
    @RolesAllowed(Roles.DEVICE)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response scan(@PathParam("id") String parcelId, String raw) throws JsonProcessingException {
        return requests.submit(raw, Topics.PARCEL_SCANS, "scans", false,
                (item, path, recordedAt, fields) -> parser.parse(parcelId, item, path, recordedAt, fields));
    }
}
