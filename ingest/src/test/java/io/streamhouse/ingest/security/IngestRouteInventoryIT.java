package io.streamhouse.ingest.security;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.security.testing.AccessTable;
import io.streamhouse.security.testing.RouteChecks;
import io.streamhouse.security.testing.RouteInventory;
import io.streamhouse.security.testing.RouteInventory.Route;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every JAX-RS route of ingest, as the running app routes them, names its roles and answers accordingly, so a new
 * endpoint cannot be left open by accident. Liveness and readiness, the only open paths, are not JAX-RS routes
 * (IngestAccessIT calls them). docs/security.md's table of roles against endpoints is held to the same routes and
 * the path policies the running app enforces.
 */
@QuarkusTest
class IngestRouteInventoryIT {
    static final Set<String> OPEN = Set.of();

    @TestHTTPResource("/")
    URI base;

    @Test
    void everyRouteNamesItsRoles() {
        var routes = RouteInventory.jaxRsRoutes();
        assertThat(routes).extracting(Route::path).contains("/v1/transactions", "/v1/transactions/authorize",
                "/v1/telemetry", "/v1/parcels/{id}/scans", "/v1/parcels/scans");
        RouteChecks.assertEveryRouteNamesItsRoles(routes, OPEN);
    }

    @Test
    void everyRouteAnswers401WithoutAToken403WithAWrongRoleAndLetsTheRightOneIn() {
        RouteChecks.assertEveryRouteAnswersAsDeclared(base, RouteInventory.jaxRsRoutes());
    }

    @Test
    void docsSecurityTableListsEveryRouteWithTheRolesTheAppAdmits() {
        Map<String, Set<String>> enforced = new TreeMap<>(AccessTable.ofRoutes(RouteInventory.jaxRsRoutes()));
        enforced.putAll(AccessTable.ofPathPolicies(ConfigProvider.getConfig()));
        assertThat(enforced).containsKeys("POST /v1/transactions", "ANY /q/*", "ANY /q/health/live");
        AccessTable.assertDocuments(Path.of("../docs/security.md"), "ingest", enforced);
    }
}
