package io.streamhouse.ingest.transactions;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.ingest.http.EventRequests;
import io.streamhouse.ingest.intake.Submission;
import io.quarkus.security.identity.SecurityIdentity;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /v1/transactions}: one authorization request (a JSON object) or a batch (a JSON array). A batch is
 * all-or-nothing at validation: if any item is invalid, none is written and every bad field is named with its
 * index. Accepted requests are answered 202 with where they were written; their decisions follow on
 * {@code payments.transactions.decisions}. The event id is derived from the transaction id, so a retry is
 * recognised (see {@link io.streamhouse.ingest.intake.AcceptedEvents} for how far). Each request records its
 * submitter (the token's subject, never the body's word) so that only it reads the decision back.
 */
@Path("/v1/transactions")
public class TransactionResource {
    private final EventRequests requests;
    private final TransactionRequestParser parser;
    private final SecurityIdentity caller;

    public TransactionResource(EventRequests requests, IngestConfig config, SecurityIdentity caller) {
        this.requests = requests;
        this.caller = caller;
        this.parser = new TransactionRequestParser(new CardTokenizer(config.tokenization().key()));
    }

    @POST
    @RolesAllowed(Roles.PAYMENTS)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response submit(String raw) throws JsonProcessingException {
        return requests.submit(raw, Topics.TRANSACTION_REQUESTS, "transactions", true, (item, path, recordedAt, fields) -> {
            var event = parser.parse(item, path, recordedAt, fields);
            if (event != null) {
                event.setSubmittedBy(caller.getPrincipal().getName());
            }
            // Keyed by card token: a card's payments stay in order on one partition, with the card's state.
            return event == null ? null : new Submission<>(event.getTransactionId(), event.getCardToken(),
                    event.getEnvelope().getEventId(), "transactionId", event);
        });
    }
}
