package io.streamhouse.api.decisions;

import io.streamhouse.api.http.Problems;
import io.streamhouse.projections.DecisionLookupProjection;
import io.streamhouse.domain.event.TransactionDecision;
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
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

import java.util.regex.Pattern;

/**
 * {@code GET /v1/transactions/{id}/decision}: the decision recorded for a transaction, from the local store of
 * the decisions projection. (Routing a key held by another instance arrives with the Serving issue.) A payments
 * caller reads only its own transactions' decisions ({@link DecisionReaders}).
 */
@Path("/v1/transactions/{id}/decision")
public class DecisionResource {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
    private final KafkaStreams streams;
    private final SecurityIdentity caller;
    private final AuditTrail audit;

    public DecisionResource(KafkaStreams streams, SecurityIdentity caller, AuditTrail audit) {
        this.streams = streams;
        this.caller = caller;
        this.audit = audit;
    }

    @GET
    @RolesAllowed({Roles.PAYMENTS, Roles.REVIEWER})
    @Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
    public Response get(@PathParam("id") String id) {
        return audit.http(AuditAction.DECISION_READ, "transaction", id, java.util.Map.of("view", "decision"), false,
                () -> read(id));
    }

    private Response read(String id) {
        if (!ID.matcher(id).matches()) {
            return Problems.of(400, "Bad transaction id", "id must be 1-64 letters, digits or . _ : -");
        }
        TransactionDecision decision;
        try {
            decision = streams.store(StoreQueryParameters.fromNameAndType(DecisionLookupProjection.STORE,
                    QueryableStoreTypes.<String, TransactionDecision>keyValueStore())).get(id);
        } catch (InvalidStateStoreException e) {
            return Problems.notReady("the decision store", streams.state());
        }
        if (decision == null || !DecisionReaders.mayRead(caller, decision)) {
            return Problems.of(404, "No decision", "no decision is recorded for transaction " + id
                    + " (unknown, or not decided yet: decisions follow a request within milliseconds)");
        }
        return Response.ok(DecisionView.of(decision), MediaType.APPLICATION_JSON).build();
    }
}
