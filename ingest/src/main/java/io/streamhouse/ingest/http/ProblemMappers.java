package io.streamhouse.ingest.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.streamhouse.ingest.kafka.PublishException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.List;

/** Maps failures to problem documents. Messages never echo request bodies (they may hold a card number). */
public class ProblemMappers {

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

    @ServerExceptionMapper
    public Response unavailable(PublishException e) {
        return Response.fromResponse(Problem.response(503, "Log unavailable",
                        "The event could not be written to the log; nothing was accepted. Retry with the same ids.", List.of()))
                .header("Retry-After", "1")
                .build();
    }
}
