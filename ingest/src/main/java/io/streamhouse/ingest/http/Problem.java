package io.streamhouse.ingest.http;

import io.streamhouse.domain.pii.CardNumbers;
import jakarta.ws.rs.core.Response;

import java.util.List;

/**
 * An RFC 9457 problem document; {@code errors} lists every bad field. Whatever a caller sent and a message repeats
 * (a path, a field name) has its card numbers masked here, the last stop before the answer.
 */
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {
    public static final String MEDIA_TYPE = "application/problem+json";

    public static Response response(int status, String title, String detail, List<FieldError> errors) {
        return Response.status(status)
                .type(MEDIA_TYPE)
                .entity(new Problem("about:blank", title, status, CardNumbers.mask(detail), errors.stream()
                        .map(e -> new FieldError(CardNumbers.mask(e.field()), CardNumbers.mask(e.message()))).toList()))
                .build();
    }
}
