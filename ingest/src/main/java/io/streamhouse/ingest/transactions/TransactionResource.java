package io.streamhouse.ingest.transactions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.ingest.http.FieldError;
import io.streamhouse.ingest.http.JsonFields;
import io.streamhouse.ingest.http.ValidationException;
import io.streamhouse.ingest.kafka.Accepted;
import io.streamhouse.ingest.kafka.EventLog;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/transactions}: one authorization request (a JSON object) or a batch (a JSON array). A batch is
 * all-or-nothing at validation: if any item is invalid, none is written and every bad field is named with its
 * index. Accepted requests are answered 202 with where they were written; their decisions follow on
 * {@code payments.transactions.decisions}.
 */
@Path("/v1/transactions")
public class TransactionResource {
    private final EventLog log;
    private final TransactionRequestParser parser;
    private final Clock clock;
    private final int maxBatch;
    private final ObjectMapper json;

    public TransactionResource(EventLog log, IngestConfig config, Clock clock, ObjectMapper json) {
        this.json = json;
        this.log = log;
        this.parser = new TransactionRequestParser(new CardTokenizer(config.tokenization().key()));
        this.clock = clock;
        this.maxBatch = config.maxBatch();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response submit(String raw) throws JsonProcessingException {
        // Parsed here, not by the framework, so that malformed JSON gets a problem document naming where it broke.
        JsonNode body = raw == null || raw.isBlank() ? null : json.readTree(raw);
        if (body == null) {
            throw new ValidationException(List.of(new FieldError("$", "a JSON object or array is required")));
        }
        var recordedAt = clock.instant();
        var fields = new JsonFields();
        List<TransactionAuthorizationRequested> events = new ArrayList<>();
        if (body.isArray()) {
            if (body.isEmpty() || body.size() > maxBatch) {
                throw new ValidationException(List.of(new FieldError("$", "a batch holds 1 to " + maxBatch + " transactions")));
            }
            var ids = new HashSet<String>();
            for (int i = 0; i < body.size(); i++) {
                var event = parser.parse(body.get(i), "[" + i + "]", recordedAt, fields);
                if (event != null && !ids.add(event.getTransactionId())) {
                    fields.error("[" + i + "].transactionId", "appears twice in this batch");
                }
                events.add(event);
            }
        } else {
            events.add(parser.parse(body, "", recordedAt, fields));
        }
        if (!fields.errors().isEmpty()) {
            throw new ValidationException(fields.errors());
        }
        var written = log.publish(Topics.TRANSACTION_REQUESTS,
                events.stream().map(e -> Map.entry(e.getCardToken(), e)).toList());
        List<Accepted> accepted = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            var e = events.get(i);
            var m = written.get(i);
            accepted.add(new Accepted(e.getTransactionId(), e.getEnvelope().getEventId(), m.topic(), m.partition(), m.offset()));
        }
        Object entity = body.isArray() ? accepted : accepted.get(0);
        return Response.accepted(entity).build();
    }
}
