package io.streamhouse.ingest.parcels;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.tracing.testing.RecordedSpans;
import jakarta.inject.Inject;
import io.restassured.http.ContentType;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.testing.LogRecords;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

/** {@code POST /v1/parcels/{id}/scans} against the shared platform. */
@QuarkusTest
class ParcelScanResourceIT {

    static final String SCAN = """
            {"occurredAt": "2026-03-02T09:00:00Z", "status": "RECEIVED_AT_HUB", "hubId": "%s",
             "location": {"lat": 51.9244, "lon": 4.4777}}""".formatted(Hubs.ROTTERDAM);

    @Test
    void aScanIsOnTheScansTopicKeyedByParcelAndARetryIsNotWrittenAgain() {
        String parcel = "pcl-" + UUID.randomUUID().toString().substring(0, 8);
        var first = given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(SCAN).post("/v1/parcels/{id}/scans", parcel)
                .then().statusCode(202)
                .body("id", equalTo(parcel))
                .body("topic", equalTo(Topics.PARCEL_SCANS.name()))
                .body("duplicate", equalTo(false))
                .extract().jsonPath();
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(SCAN).post("/v1/parcels/{id}/scans", parcel)
                .then().statusCode(202)
                .body("duplicate", equalTo(true))
                .body("offset", equalTo(first.getInt("offset")));

        var record = LogRecords.awaitAt(Topics.PARCEL_SCANS, first.getInt("partition"), first.getLong("offset"));
        assertThat(record.key()).isEqualTo(parcel);
        var event = LogRecords.decode(Topics.PARCEL_SCANS, record.value());
        assertThat(event.getParcelId()).isEqualTo(parcel);
        assertThat(event.getStatus()).isEqualTo(ParcelStatus.RECEIVED_AT_HUB);
        assertThat(event.getHubId()).isEqualTo(Hubs.ROTTERDAM);
        assertThat(LogRecords.countByEventId(Topics.PARCEL_SCANS, first.getString("eventId"))).isEqualTo(1);
    }

    @Inject
    InMemorySpanExporter spans;

    /**
     * The first half of the scan-to-projection trace: the HTTP request's trace is on the scan record's traceparent
     * header, with a publish span between (the serving app's half: api's ScanToProjectionTraceIT).
     */
    @Test
    void aScanCarriesItsRequestsTraceOntoTheLog() {
        String parcel = "pcl-trace-" + UUID.randomUUID().toString().substring(0, 8);
        var written = given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(SCAN)
                .post("/v1/parcels/{id}/scans", parcel).then().statusCode(202).extract().jsonPath();

        var record = LogRecords.awaitAt(Topics.PARCEL_SCANS, written.getInt("partition"), written.getLong("offset"));
        String traceId = RecordedSpans.traceIdOf(record.headers());
        assertThat(traceId).as("traceparent header of the scan record").isNotNull();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            var trace = RecordedSpans.ofTrace(spans, traceId);
            assertThat(trace).anyMatch(s -> s.getKind() == SpanKind.SERVER && s.getName().contains("/v1/parcels/{id}/scans"));
            assertThat(RecordedSpans.has(trace, SpanKind.PRODUCER, Topics.PARCEL_SCANS.name())).as("publish span").isTrue();
        });
        // The value is the Avro wire format as before: the trace is a header beside it.
        assertThat(LogRecords.decode(Topics.PARCEL_SCANS, record.value()).getParcelId()).isEqualTo(parcel);
    }

    @Test
    void aBadPathIdAndEveryBadFieldAreNamedAndAnArrayIsRefused() {
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON)
                .body("{\"occurredAt\": \"2026-03-02T09:00:00Z\", \"status\": \"UNKNOWN\", \"vehicleId\": 7, \"weightKg\": 2}")
                .post("/v1/parcels/{id}/scans", "no spaces")
                .then().statusCode(422).contentType("application/problem+json")
                .body("errors.field", hasItems("parcelId", "status", "vehicleId", "weightKg"));
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body("[" + SCAN + "]").post("/v1/parcels/{id}/scans", "pcl-1")
                .then().statusCode(422).body("errors[0].field", equalTo("$"));
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body("{\"status\": ").post("/v1/parcels/{id}/scans", "pcl-1")
                .then().statusCode(400).contentType("application/problem+json");
    }

    /** {@code POST /v1/parcels/scans}: many parcels' scans in one request, each on the log keyed by its parcel, once. */
    @Test
    void aBatchOfScansPutsEachOnTheTopicKeyedByItsParcelAndABadItemRefusesTheBatchNamingIt() {
        String a = "pcl-b-" + UUID.randomUUID().toString().substring(0, 8), b = "pcl-b-" + UUID.randomUUID().toString().substring(0, 8);
        String batch = "[" + SCAN.replaceFirst("\\{", "{\"parcelId\": \"" + a + "\", ") + ", "
                + SCAN.replaceFirst("\\{", "{\"parcelId\": \"" + b + "\", ") + "]";
        var written = given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(batch)
                .post("/v1/parcels/scans").then().statusCode(202).extract().jsonPath();
        assertThat(written.getList("id", String.class)).containsExactly(a, b);
        for (int i = 0; i < 2; i++) {
            var record = LogRecords.awaitAt(Topics.PARCEL_SCANS, written.getInt("[" + i + "].partition"),
                    written.getLong("[" + i + "].offset"));
            assertThat(record.key()).isEqualTo(i == 0 ? a : b);
            assertThat(LogRecords.decode(Topics.PARCEL_SCANS, record.value()).getParcelId()).isEqualTo(i == 0 ? a : b);
        }

        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON)
                .body("[" + SCAN.replaceFirst("\\{", "{\"parcelId\": \"pcl-ok\", ") + ", " + SCAN + "]")
                .post("/v1/parcels/scans").then().statusCode(422).contentType("application/problem+json")
                .body("errors.field", hasItems("[1].parcelId"));
    }
}
