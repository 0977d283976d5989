package io.streamhouse.security.testing;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.RouteInventory.Route;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.core.MediaType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The access checks every app runs over its whole {@link RouteInventory}: each route names its roles (or is one of a
 * short list of open paths), and answers as it says: 401 without a token, 403 naming the roles with a wrong one, and
 * neither with the right one (an empty or invalid request then gets whatever the endpoint answers: 404, 422, 503...).
 */
public final class RouteChecks {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** Every route carries {@code @RolesAllowed} with at least one role; the open paths, and only they, {@code @PermitAll}. */
    public static void assertEveryRouteNamesItsRoles(List<Route> routes, Set<String> openPaths) {
        assertThat(routes).as("the app's JAX-RS routes").isNotEmpty();
        for (Route r : routes) {
            if (openPaths.contains(r.path())) {
                assertThat(r.access()).as("open route %s", r).isInstanceOf(PermitAll.class);
            } else {
                assertThat(r.access()).as("access annotation of %s (a new endpoint must name its roles)", r)
                        .isInstanceOf(RolesAllowed.class);
                assertThat(r.rolesAllowed()).as("roles of %s", r).isNotEmpty().allSatisfy(role -> assertThat(Roles.ALL).contains(role));
            }
        }
    }

    /** Calls every route without a token, with a wrong role and with a right one. */
    public static void assertEveryRouteAnswersAsDeclared(URI base, List<Route> routes) {
        for (Route r : routes) {
            if (r.rolesAllowed().isEmpty()) {
                assertThat(call(base, r, null).status()).as("%s without a token (open)", r).isNotIn(401, 403);
                continue;
            }
            Answer anonymous = call(base, r, null);
            assertThat(anonymous.status()).as("%s without a token", r).isEqualTo(401);
            assertThat(anonymous.contentType()).as("%s without a token", r).startsWith("application/problem+json");

            String wrong = Roles.ALL.stream().filter(role -> !r.rolesAllowed().contains(role)).findFirst().orElseThrow();
            Answer denied = call(base, r, TestTokens.forRole(wrong));
            assertThat(denied.status()).as("%s as %s", r, wrong).isEqualTo(403);
            assertThat(denied.contentType()).as("%s as %s", r, wrong).startsWith("application/problem+json");
            assertThat(denied.body()).as("%s as %s names the roles needed", r, wrong).contains(r.rolesAllowed());

            for (String right : r.rolesAllowed()) {
                assertThat(call(base, r, TestTokens.forRole(right)).status()).as("%s as %s", r, right).isNotIn(401, 403);
            }
        }
    }

    public record Answer(int status, String contentType, String body) {
    }

    /**
     * One call with an empty JSON object as the body where the route takes one. The answer is read only up to its
     * status and headers for a stream (server-sent events never end), and in full otherwise.
     */
    static Answer call(URI base, Route route, String token) {
        boolean hasBody = route.httpMethod().equals("POST") || route.httpMethod().equals("PUT") || route.httpMethod().equals("PATCH");
        String type = route.consumes().isEmpty() || route.consumes().get(0).isWildcardType()
                ? MediaType.APPLICATION_JSON : route.consumes().get(0).toString();
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(route.callablePath("x-route-inventory")))
                .timeout(Duration.ofSeconds(30))
                .method(route.httpMethod(), hasBody ? HttpRequest.BodyPublishers.ofString("{}") : HttpRequest.BodyPublishers.noBody());
        if (hasBody) {
            request.header("Content-Type", type);
        }
        if (token != null) {
            request.header("Authorization", TestTokens.bearer(token));
        }
        try {
            HttpResponse<InputStream> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            String contentType = response.headers().firstValue("Content-Type").orElse("");
            try (InputStream in = response.body()) {
                String body = contentType.startsWith(MediaType.SERVER_SENT_EVENTS) ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
                return new Answer(response.statusCode(), contentType, body);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(route + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private RouteChecks() {
    }
}
