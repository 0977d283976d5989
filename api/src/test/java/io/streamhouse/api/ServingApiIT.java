package io.streamhouse.api;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import io.restassured.RestAssured;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.get;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/**
 * The query API's HTTP contract as far as it does not need the stores: every malformed input is a 400 naming the
 * field, lookups without the projections are a 503 problem with Retry-After, never a 500, and the SSE stream (a
 * plain consumer, not Streams) delivers new alerts. (The serving Streams app is off in @QuarkusTest — see
 * ApiConfig.Serving#enabled; {@code ServingInstancesIT} covers lookups end to end.)
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class ServingApiIT {
    /** Requests of this class go out as test-staff: a token with reviewer, ops. */
    @org.junit.jupiter.api.BeforeEach
    void authenticate() {
        io.streamhouse.api.Callers.authenticateAs("test-staff", Roles.REVIEWER, Roles.OPS);
    }

    @org.junit.jupiter.api.AfterEach
    void forgetToken() {
        io.streamhouse.api.Callers.forget();
    }


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
        get("/v1/decisions?limit=501").then().statusCode(400).contentType("application/problem+json")
                .body("errors.field", hasItem("limit")).body("errors.message", hasItem(containsString("501")));
        get("/v1/decisions?limit=x").then().statusCode(400).body("errors.field", hasItem("limit"));
        get("/v1/decisions?before=nope").then().statusCode(400).body("errors.field", hasItem("before"));
    }

    @Test
    void withoutTheProjectionsLookupsAre503WithRetryAfter() {
        get("/v1/parcels/P-1").then().statusCode(503).contentType("application/problem+json")
                .header("Retry-After", "1").body("detail", containsString("not running"));
        get("/v1/alerts").then().statusCode(503);
        get("/v1/decisions").then().statusCode(503).contentType("application/problem+json").header("Retry-After", "1");
    }

    @Test
    void newAlertsArriveOnTheServerSentEventStream() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        var lines = new java.util.concurrent.LinkedBlockingQueue<String>();
        // Asynchronously: the server may send the response headers only with the first event.
        var response = http.sendAsync(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + RestAssured.port + "/v1/alerts/stream"))
                        .header("Authorization", TestTokens.bearer(TestTokens.forRole(Roles.REVIEWER))).GET().build(),
                HttpResponse.BodyHandlers.ofLines());
        response.thenAcceptAsync(r -> r.body().forEach(lines::add));
        Instant t = Times.T0;
        Alert alert = Alert.newBuilder().setEnvelope(SampleEvents.envelope("evt-sse-1", "P-sse", t, Alert.class))
                .setAlertId("sse-1").setType(AlertType.PARCEL_SLA_BREACH).setCategory(AlertCategory.PARCEL)
                .setSeverity(Severity.HIGH).setSubject(AlertSubject.newBuilder().setKind(SubjectKind.PARCEL).setId("P-sse").build())
                .setPatternId("parcel-sla").setPatternVersion(1).setSummary("late").setMatchedEventIds(List.of())
                .setAttributes(Map.of()).setWindowStart(t).setWindowEnd(t).build();
        // The broadcaster starts at the end of the alert topics: publish until one arrives (the first may predate its seek).
        String seen = null;
        for (int attempt = 0; attempt < 30 && seen == null; attempt++) {
            EventLog.send(Topics.PARCEL_ALERTS, "P-sse", alert);
            String line;
            while ((line = lines.poll(1, java.util.concurrent.TimeUnit.SECONDS)) != null) {
                if (line.startsWith("data:") && line.contains("\"sse-1\"")) {
                    seen = line;
                    break;
                }
            }
        }
        assertThat(response.get(10, java.util.concurrent.TimeUnit.SECONDS).headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        assertThat(seen).as("an SSE data line with the alert").isNotNull().contains("\"subjectId\":\"P-sse\"")
                .contains("\"category\":\"PARCEL\"");
    }

    @Test
    void readinessNamesTheServingCheck() {
        get("/q/health/ready").then()
                .body("checks.find { it.name == 'serving-projections-running' }.data.state", equalTo("DISABLED"));
    }
}
