package io.streamhouse.api.decisions;

import io.streamhouse.api.http.Problems;
import io.quarkus.security.identity.SecurityIdentity;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.util.Optional;

/**
 * {@code GET /v1/transactions/{id}/explanation}: why a payment got its outcome, for a person or an agent (the MCP
 * tool {@code why_blocked} answers the same from {@link DecisionQueries#explain}).
 */
@Path("/v1/transactions/{id}/explanation")
public class ExplanationResource {
    private final DecisionQueries decisions;
    private final SecurityIdentity caller;
    private final AuditTrail audit;

    public ExplanationResource(DecisionQueries decisions, SecurityIdentity caller, AuditTrail audit) {
        this.decisions = decisions;
        this.caller = caller;
        this.audit = audit;
    }

    @GET
    @RolesAllowed({Roles.PAYMENTS, Roles.REVIEWER})
    @Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
    public Response explain(@PathParam("id") String id) {
        return audit.http(AuditAction.DECISION_READ, "transaction", id, java.util.Map.of("view", "explanation"), false,
                () -> explainAudited(id));
    }

    private Response explainAudited(String id) {
        if (!DecisionQueries.isValidId(id)) {
            return Problems.of(400, "Bad transaction id", DecisionQueries.ID_RULE);
        }
        Optional<DecisionQueries.Explanation> explanation;
        try {
            boolean readable = decisions.decision(id).map(d -> DecisionReaders.mayRead(caller, d)).orElse(false);
            explanation = readable ? decisions.explain(id) : Optional.empty();
        } catch (InvalidStateStoreException e) {
            return Problems.notReady("the decision store", decisions.streamsState());
        }
        if (explanation.isEmpty()) {
            return Problems.of(404, "No decision", "no decision is recorded for transaction " + id);
        }
        return Response.ok(explanation.get()).build();
    }
}
