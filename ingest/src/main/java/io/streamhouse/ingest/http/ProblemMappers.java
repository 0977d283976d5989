package io.streamhouse.ingest.http;

import jakarta.ws.rs.NotSupportedException;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.streamhouse.ingest.authorize.AlreadyDecidedException;
import io.streamhouse.ingest.intake.ConflictException;
import io.streamhouse.ingest.intake.TooBusyException;
import io.streamhouse.ingest.kafka.PublishException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.List;

/** Maps failures to problem documents. Messages never echo request bodies (they may hold a card number). */
public class ProblemMappers {
    /** Long enough for the producer to drain a full in-flight window at the throughput measured here. */
    static final String RETRY_AFTER_SECONDS = "1";

    @ServerExceptionMapper
    public Response invalid(ValidationException e) {
        return Problem.response(422, "Invalid request", e.errors().size() + " field(s) are invalid", e.errors());
    }

    @ServerExceptionMapper
    public Response malformed(JsonProcessingException e) {
        var location = e.getLocation();
        String where = location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return Problem.response(400, "Malformed JSON", "The body is not valid JSON" + where,
                List.of(new FieldError("$", "not valid JSON" + where)));
    }

    /** A body that is not JSON by its Content-Type: the endpoints read application/json only. */
    @ServerExceptionMapper
    public Response unsupportedMediaType(NotSupportedException e) {
        return Problem.response(415, "Unsupported media type", "The body must be application/json",
                List.of(new FieldError("Content-Type", "must be application/json")));
    }

    @ServerExceptionMapper
    public Response unavailable(PublishException e) {
        return Response.fromResponse(Problem.response(503, "Log unavailable",
                        "Not every event was acknowledged by the log in time. Retry the same request: events of it that"
                                + " were written are recognised by their event id and not written twice.", List.of()))
                .header("Retry-After", "1")
                .build();
    }

    @ServerExceptionMapper
    public Response conflict(ConflictException e) {
        return Problem.response(409, "Event id reused",
                "An event id was already accepted for a different event; nothing was written", e.errors());
    }

    @ServerExceptionMapper
    public Response alreadyDecided(AlreadyDecidedException e) {
        return Problem.response(409, "Transaction already decided",
                "This transaction id was already decided for a different request. This request is on the log and was"
                        + " dead-lettered to payments.transactions.requested.dlq with the reason; it is not decided.", e.errors());
    }

    @ServerExceptionMapper
    public Response tooBusy(TooBusyException e) {
        return Response.fromResponse(Problem.response(429, "Too many events in flight",
                        "The log is not keeping up with this instance's writes; nothing of this request was written."
                                + " Retry after the given seconds.", List.of()))
                .header("Retry-After", RETRY_AFTER_SECONDS)
                .build();
    }
}
