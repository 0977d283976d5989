package io.streamhouse.api.decisions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.security.identity.SecurityIdentity;
import io.streamhouse.api.http.Problems;
import io.streamhouse.api.mcp.ReviewRecorder;
import io.streamhouse.api.mcp.ToolResults;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.security.Roles;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /v1/transactions/{id}/review}: a reviewer's verdict on a payment held for REVIEW, recorded by the same
 * {@link ReviewRecorder} as the MCP tool {@code record_review_outcome} and audited as REVIEW_OUTCOME_RECORDED (a
 * write: the answer waits for its audit event). The reviewer is the verified token's subject, never the body's.
 * Answers 202 once the broker acknowledged the event: the card's fraud flag follows asynchronously.
 */
@Path("/v1/transactions/{id}/review")
public class ReviewResource {
    static final Set<String> FIELDS = Set.of("outcome", "note");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ReviewRecorder recorder;
    private final SecurityIdentity caller;
    private final AuditTrail audit;

    public ReviewResource(ReviewRecorder recorder, SecurityIdentity caller, AuditTrail audit) {
        this.recorder = recorder;
        this.caller = caller;
        this.audit = audit;
    }

    /** The body's two fields, read by hand so that every fault names its field. */
    record ReviewBody(String outcome, String note) {
    }

    @POST
    @RolesAllowed(Roles.REVIEWER)
    @Consumes(MediaType.WILDCARD)
    @Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
    public Response review(@PathParam("id") String id, String body) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("via", "http");
        return audit.http(AuditAction.REVIEW_OUTCOME_RECORDED, "transaction", id, details, true, () -> {
            ReviewBody parsed;
            try {
                parsed = parse(body);
            } catch (BadBody e) {
                return Problems.of(400, "Bad review", e.getMessage(), List.of(new Problems.FieldError(e.field, e.getMessage())));
            }
            details.put("outcome", parsed.outcome() == null ? "" : parsed.outcome());
            try {
                ReviewRecorder.Recorded recorded = recorder.record(id, parsed.outcome(), caller.getPrincipal().getName(),
                        parsed.note(), ReviewRecorder.HTTP_SOURCE);
                return Response.status(202).type(MediaType.APPLICATION_JSON).entity(recorded).build();
            } catch (ToolResults.Refusal e) {
                return problem(e, id);
            } catch (InvalidStateStoreException e) {
                return Problems.notReady("the decision store", e.getMessage());
            }
        });
    }

    static Response problem(ToolResults.Refusal e, String id) {
        return switch (e.kind()) {
            case INVALID -> {
                String field = "transactionId".equals(e.field()) ? "id" : e.field();
                yield Problems.of(400, "Bad review", e.getMessage(),
                        field == null ? List.of() : List.of(new Problems.FieldError(field, e.getMessage())));
            }
            case NOT_FOUND -> Problems.of(404, "No decision", e.getMessage());
            case CONFLICT -> Problems.of(409, "Not held for review", e.getMessage());
            case UNAVAILABLE -> Response.fromResponse(Problems.of(503, "Not recorded", e.getMessage()))
                    .header("Retry-After", "1").build();
        };
    }

    /** A fault of the body, naming the field ({@code body} for the body as a whole). */
    static final class BadBody extends Exception {
        private static final long serialVersionUID = 1L;
        final String field;

        BadBody(String field, String message) {
            super(message, null, false, false);
            this.field = field;
        }
    }

    /**
     * {@code {"outcome": "...", "note": "..."}}: a JSON object, {@code outcome} a string, {@code note} a string or
     * absent or null, nothing else. The values themselves are checked by {@link ReviewRecorder}.
     */
    static ReviewBody parse(String body) throws BadBody {
        if (body == null || body.isBlank()) {
            throw new BadBody("body", "the body must be a JSON object {\"outcome\": \"CONFIRMED_FRAUD\" | \"LEGITIMATE\", \"note\": \"...\"}");
        }
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (IOException e) {
            throw new BadBody("body", "the body is not valid JSON: " + firstLine(e.getMessage()));
        }
        if (node == null || !node.isObject()) {
            throw new BadBody("body", "the body must be a JSON object, was " + (node == null ? "empty" : node.getNodeType().name().toLowerCase(java.util.Locale.ROOT)));
        }
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw new BadBody(unknown.get(0), "unknown field '" + unknown.get(0) + "': the body takes only outcome and note"
                    + " (the reviewer is the signed-in caller)");
        }
        return new ReviewBody(text(node, "outcome"), text(node, "note"));
    }

    private static String text(JsonNode body, String field) throws BadBody {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new BadBody(field, field + " must be a string, was " + value.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        return value.asText();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
