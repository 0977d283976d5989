package io.streamhouse.api.http;

import io.streamhouse.domain.pii.CardNumbers;
import jakarta.ws.rs.core.Response;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RFC 9457 problem documents for the api's answers. Card numbers in whatever a message repeats from a request (an
 * id, a field name, a value) are masked here, the last stop before the answer (docs/pii.md).
 */
public final class Problems {
    public static final String MEDIA_TYPE = "application/problem+json";

    public record FieldError(String field, String message) {
    }

    public static Response of(int status, String title, String detail) {
        return of(status, title, detail, List.of());
    }

    public static Response of(int status, String title, String detail, List<FieldError> errors) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status);
        body.put("detail", CardNumbers.mask(detail));
        if (!errors.isEmpty()) {
            body.put("errors", errors.stream()
                    .map(e -> new FieldError(CardNumbers.mask(e.field()), CardNumbers.mask(e.message()))).toList());
        }
        return Response.status(status).type(MEDIA_TYPE).entity(body).build();
    }

    public static Response notReady(String what, Object state) {
        return Response.fromResponse(of(503, "Not ready", what + " is not queryable yet (" + state + ")"))
                .header("Retry-After", "1").build();
    }

    private Problems() {
    }
}
