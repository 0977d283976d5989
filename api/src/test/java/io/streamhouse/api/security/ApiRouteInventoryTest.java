package io.streamhouse.api.security;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.security.testing.RouteChecks;
import io.streamhouse.security.testing.RouteInventory;
import io.streamhouse.security.testing.RouteInventory.Route;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every JAX-RS route of the api, as the running app routes them, names its roles and answers accordingly, so a new
 * endpoint cannot be left open by accident. Open: only the OAuth protected resource metadata (RFC 9728), which an MCP
 * client reads before it has a token; liveness and readiness, also open, are not JAX-RS routes (ApiAccessTest).
 */
@QuarkusTest
class ApiRouteInventoryTest {
    static final Set<String> OPEN = Set.of("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp");

    @TestHTTPResource("/")
    URI base;

    @Test
    void everyRouteNamesItsRoles() {
        var routes = RouteInventory.jaxRsRoutes();
        assertThat(routes).extracting(Route::path).contains("/v1/rules/{ruleId}", "/v1/transactions/{id}/decision",
                "/v1/sql", "/internal/v1/state/{store}/{key}", "/v1/lineage");
        RouteChecks.assertEveryRouteNamesItsRoles(routes, OPEN);
    }

    @Test
    void everyRouteAnswers401WithoutAToken403WithAWrongRoleAndLetsTheRightOneIn() {
        RouteChecks.assertEveryRouteAnswersAsDeclared(base, RouteInventory.jaxRsRoutes());
    }
}
