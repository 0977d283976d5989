package io.streamhouse.security.http;

import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import io.streamhouse.security.audit.AuditTrail;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.Priority;
import jakarta.decorator.Decorator;
import jakarta.decorator.Delegate;
import jakarta.enterprise.inject.Any;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.Optional;

/**
 * Every 401 (no token, or one that is expired, forged or malformed) as a problem document with a
 * {@code WWW-Authenticate: Bearer} challenge (RFC 6750) that, where the app serves protected resource metadata (the
 * api, for MCP clients), points at it (RFC 9728). The answer never echoes the token. Each 401 is audited once
 * (REQUEST_DENIED, subject anonymous).
 */
@Decorator
@Priority(10)
public abstract class ProblemChallenge implements HttpAuthenticationMechanism {
    @Inject
    @Any
    @Delegate
    HttpAuthenticationMechanism delegate;

    @Inject
    AuditTrail audit;

    @ConfigProperty(name = "streamhouse.security.resource-metadata-path")
    Optional<String> resourceMetadataPath;

    @Override
    public Uni<Boolean> sendChallenge(RoutingContext context) {
        boolean presented = context.request().getHeader("Authorization") != null;
        StringBuilder challenge = new StringBuilder("Bearer realm=\"streamhouse\"");
        if (presented) {
            challenge.append(", error=\"invalid_token\"");
        }
        resourceMetadataPath.ifPresent(path -> challenge.append(", resource_metadata=\"")
                .append(context.request().scheme()).append("://").append(context.request().authority()).append(path).append('"'));
        context.response().putHeader("WWW-Authenticate", challenge.toString());
        String detail = presented
                ? "The bearer token was not accepted: it is expired, not signed by a trusted key, or malformed."
                : "This endpoint needs a bearer token (Authorization: Bearer <token>).";
        boolean answered = context.response().ended();
        ProblemBodies.write(context.response(), 401, "Unauthorized", detail);
        if (!answered) {
            audit.denied(context, null, 401, detail);
        }
        return Uni.createFrom().item(true);
    }
}
