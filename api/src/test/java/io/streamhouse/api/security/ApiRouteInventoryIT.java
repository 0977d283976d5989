package io.streamhouse.api.security;

import io.quarkiverse.mcp.server.ToolManager;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.api.mcp.ToolAccess;
import io.streamhouse.security.testing.AccessTable;
import io.streamhouse.security.testing.RouteChecks;
import io.streamhouse.security.testing.RouteInventory;
import io.streamhouse.security.testing.RouteInventory.Route;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every JAX-RS route of the api, as the running app routes them, names its roles and answers accordingly, so a new
 * endpoint cannot be left open by accident. Open: only the OAuth protected resource metadata (RFC 9728), which an MCP
 * client reads before it has a token; liveness and readiness, also open, are not JAX-RS routes (ApiAccessIT).
 * docs/security.md's table of roles against endpoints and tools is held to the same routes, the path policies and the
 * MCP tools the running app serves.
 */
@QuarkusTest
class ApiRouteInventoryIT {
    static final Set<String> OPEN = Set.of("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp");

    @TestHTTPResource("/")
    URI base;

    @Inject
    ToolManager tools;

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

    @Test
    void docsSecurityTableListsEveryRouteAndToolWithTheRolesTheAppAdmits() {
        Map<String, Set<String>> enforced = new TreeMap<>(AccessTable.ofRoutes(RouteInventory.jaxRsRoutes()));
        enforced.putAll(AccessTable.ofPathPolicies(ConfigProvider.getConfig()));
        tools.forEach(tool -> enforced.put("MCP " + tool.name(), Set.copyOf(ToolAccess.rolesOf(tool.name()))));
        assertThat(enforced).containsKeys("MCP why_blocked", "ANY /mcp", "ANY /q/*", "PUT /v1/rules/{ruleId}");
        AccessTable.assertDocuments(Path.of("../docs/security.md"), "api", enforced);
    }
}
