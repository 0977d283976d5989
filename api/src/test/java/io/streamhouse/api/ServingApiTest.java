package io.streamhouse.api;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.get;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/**
 * The query API's HTTP contract as far as it does not need the stores: every malformed input is a 400 naming the
 * field, and lookups without the projections are a 503 problem with Retry-After, never a 500. (The serving Streams
 * app is off in @QuarkusTest — see ApiConfig.Serving#enabled; {@code ServingInstancesIT} covers lookups end to end.)
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class ServingApiTest {

    @Test
    void malformedIdsInstantsAndPagingAre400NamingTheField() {
        given().urlEncodingEnabled(false).get("/v1/parcels/%20bad").then().statusCode(400)
                .contentType("application/problem+json").body("errors.field", hasItem("id"));
        given().urlEncodingEnabled(false).get("/v1/customers/a%2Fb").then().statusCode(400).body("errors.field", hasItem("id"));
        get("/v1/vehicles/" + "v".repeat(65)).then().statusCode(400).body("errors.field", hasItem("id"));
        get("/v1/parcels/P-1?asOf=yesterday").then().statusCode(400).body("errors.field", hasItem("asOf"))
                .body("errors.message", hasItem(containsString("yesterday")));
        get("/v1/customers/c-1?asOf=2026-13-01T00:00:00Z").then().statusCode(400).body("errors.field", hasItem("asOf"));
        get("/v1/alerts?limit=0").then().statusCode(400).body("errors.field", hasItem("limit"));
        get("/v1/alerts?limit=x").then().statusCode(400).body("errors.field", hasItem("limit"));
        get("/v1/alerts?before=nope").then().statusCode(400).body("errors.field", hasItem("before"));
    }

    @Test
    void withoutTheProjectionsLookupsAre503WithRetryAfter() {
        get("/v1/parcels/P-1").then().statusCode(503).contentType("application/problem+json")
                .header("Retry-After", "1").body("detail", containsString("not running"));
        get("/v1/alerts").then().statusCode(503);
    }

    @Test
    void readinessNamesTheServingCheck() {
        get("/q/health/ready").then()
                .body("checks.find { it.name == 'serving-projections-running' }.data.state", equalTo("DISABLED"));
    }
}
