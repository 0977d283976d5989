package io.streamhouse.ingest.http;

import jakarta.ws.rs.core.Response;

import java.util.List;

/** An RFC 9457 problem document; {@code errors} lists every bad field. */
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {
    public static final String MEDIA_TYPE = "application/problem+json";

    public static Response response(int status, String title, String detail, List<FieldError> errors) {
        return Response.status(status)
                .type(MEDIA_TYPE)
                .entity(new Problem("about:blank", title, status, detail, List.copyOf(errors)))
                .build();
    }
}
