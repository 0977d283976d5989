package io.streamhouse.ingest.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.List;

/**
 * Refuses a body over {@code quarkus.http.limits.max-body-size} by its declared Content-Length with a 413 problem
 * document, before anything reads it. Without this, Vert.x's own limit answers a bare 413 with no body, which tells a
 * client nothing about the limit. A chunked body without a Content-Length still meets Vert.x's limit (bare 413).
 */
@ApplicationScoped
public class BodyLimit {
    private static final ObjectMapper JSON = new ObjectMapper();

    void install(@Observes Router router,
                 @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize limit) {
        long max = limit.asLongValue();
        String body;
        try {
            body = JSON.writeValueAsString(new Problem("about:blank", "Body too large", 413,
                    "The body is larger than " + max + " bytes",
                    List.of(new FieldError("$", "must be at most " + max + " bytes"))));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        router.route().order(Integer.MIN_VALUE).handler(rc -> {
            String declared = rc.request().getHeader("Content-Length");
            long length;
            try {
                length = declared == null ? -1 : Long.parseLong(declared.trim());
            } catch (NumberFormatException e) {
                length = -1;
            }
            if (length > max) {
                rc.response().setStatusCode(413).putHeader("Content-Type", Problem.MEDIA_TYPE)
                        .putHeader("Connection", "close").end(body);
                return;
            }
            rc.next();
        });
    }
}
