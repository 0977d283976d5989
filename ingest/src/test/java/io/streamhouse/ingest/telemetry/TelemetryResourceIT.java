package io.streamhouse.ingest.telemetry;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.testing.LogRecords;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasSize;

/** {@code POST /v1/telemetry} against the shared platform (the app boots once for all ingest tests). */
@QuarkusTest
class TelemetryResourceIT {

    static String vehicle() {
        return "truck-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static String reading(String vehicle, String occurredAt, double speed) {
        return """
                {"vehicleId": "%s", "occurredAt": "%s", "position": {"lat": 51.92, "lon": 4.47},
                 "speedKmh": %s, "coolantTempC": 104.5, "odometerKm": 120345.7, "faultCodes": ["P0217"]}"""
                .formatted(vehicle, occurredAt, speed);
    }

    @Test
    void aReadingIsOnTheTelemetryTopicAsAvroKeyedByVehicle() {
        String vehicle = vehicle();
        var accepted = given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(reading(vehicle, "2026-03-02T09:00:00Z", 82.5))
                .post("/v1/telemetry")
                .then().statusCode(202)
                .body("id", equalTo(vehicle))
                .body("topic", equalTo(Topics.VEHICLE_TELEMETRY.name()))
                .body("duplicate", equalTo(false))
                .extract().jsonPath();

        var record = LogRecords.awaitAt(Topics.VEHICLE_TELEMETRY, accepted.getInt("partition"), accepted.getLong("offset"));
        assertThat(record.key()).isEqualTo(vehicle);
        var event = LogRecords.decode(Topics.VEHICLE_TELEMETRY, record.value());
        assertThat(event.getVehicleId()).isEqualTo(vehicle);
        assertThat(event.getSpeedKmh()).isEqualTo(82.5);
        assertThat(event.getCoolantTempC()).isEqualTo(104.5);
        assertThat(event.getFaultCodes()).containsExactly("P0217");
        assertThat(event.getEnvelope().getEventId()).isEqualTo(accepted.getString("eventId"));
        assertThat(event.getEnvelope().getSource()).isEqualTo("ingest-http");
    }

    @Test
    void theSameReadingTwiceIsOneRecordAndTheSecondAnswerSaysDuplicateWithTheOriginalPosition() {
        String body = reading(vehicle(), "2026-03-02T09:00:00Z", 60);
        var first = given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(body).post("/v1/telemetry")
                .then().statusCode(202).body("duplicate", equalTo(false)).extract().jsonPath();
        var retry = given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(body).post("/v1/telemetry")
                .then().statusCode(202).body("duplicate", equalTo(true)).extract().jsonPath();

        assertThat(retry.getString("eventId")).isEqualTo(first.getString("eventId"));
        assertThat(retry.getString("topic")).isEqualTo(first.getString("topic"));
        assertThat(retry.getInt("partition")).isEqualTo(first.getInt("partition"));
        assertThat(retry.getLong("offset")).isEqualTo(first.getLong("offset"));
        assertThat(LogRecords.countByEventId(Topics.VEHICLE_TELEMETRY, first.getString("eventId"))).isEqualTo(1);
    }

    @Test
    void theSameReadingSentConcurrentlyIsWrittenOnceAndEveryOtherAnswerPointsAtIt() throws Exception {
        String body = reading(vehicle(), "2026-03-02T09:30:00Z", 70);
        int clients = 6;
        var start = new CountDownLatch(1);
        var pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<JsonPath>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(body).post("/v1/telemetry")
                            .then().statusCode(202).extract().jsonPath();
                }));
            }
            start.countDown();
            List<JsonPath> results = new ArrayList<>();
            for (var a : answers) {
                results.add(a.get(30, TimeUnit.SECONDS));
            }
            assertThat(results).filteredOn(r -> !r.getBoolean("duplicate")).hasSize(1);
            assertThat(results).extracting(r -> r.getLong("offset")).containsOnly(results.get(0).getLong("offset"));
            assertThat(LogRecords.countByEventId(Topics.VEHICLE_TELEMETRY, results.get(0).getString("eventId"))).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBatchIsAcceptedInOrderAndMayRepeatAnEarlierReading() {
        String vehicle = vehicle();
        String earlier = reading(vehicle, "2026-03-02T09:00:00Z", 10);
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(earlier).post("/v1/telemetry").then().statusCode(202);

        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body("[" + earlier + "," + reading(vehicle, "2026-03-02T09:00:10Z", 20) + "]")
                .post("/v1/telemetry")
                .then().statusCode(202)
                .body("$", hasSize(2))
                .body("duplicate", equalTo(java.util.List.of(true, false)));
    }

    @Test
    void aBatchWithTheSameReadingTwiceNamesTheRepeat() {
        String r = reading(vehicle(), "2026-03-02T09:00:00Z", 10);
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body("[" + r + "," + r + "]").post("/v1/telemetry")
                .then().statusCode(422).body("errors.field", equalTo(java.util.List.of("[1].occurredAt")));
    }

    @Test
    void aClientEventIdReusedForADifferentReadingIs409AndNothingIsWritten() {
        String eventId = UUID.randomUUID().toString();
        String vehicle = vehicle();
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(reading(vehicle, "2026-03-02T09:00:00Z", 10).replaceFirst("\\{", "{\"eventId\": \"" + eventId + "\", "))
                .post("/v1/telemetry").then().statusCode(202);
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body(reading(vehicle, "2026-03-02T09:00:05Z", 11).replaceFirst("\\{", "{\"eventId\": \"" + eventId + "\", "))
                .post("/v1/telemetry")
                .then().statusCode(409).contentType("application/problem+json").body("errors[0].field", equalTo("eventId"));
        assertThat(LogRecords.countByEventId(Topics.VEHICLE_TELEMETRY, eventId)).isEqualTo(1);
    }

    @Test
    void everyBadFieldIsNamedMalformedJsonIs400AndOversizedIs413() {
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body("""
                        {"vehicleId": "", "occurredAt": "noon", "position": {"lat": 91, "lon": 0}, "speedKmh": 401,
                         "coolantTempC": 201, "odometerKm": -1, "faultCodes": ["P9999"], "fuel": 3}""")
                .post("/v1/telemetry")
                .then().statusCode(422).contentType("application/problem+json")
                .body("errors.field", hasItems("vehicleId", "occurredAt", "position.lat", "speedKmh", "coolantTempC",
                        "odometerKm", "faultCodes[0]", "fuel"));
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body("{\"vehicleId\": ").post("/v1/telemetry")
                .then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(TestTokens.forRole(Roles.DEVICE)).contentType(ContentType.JSON).body("[" + "1,".repeat(300_000) + "1]").post("/v1/telemetry")
                .then().statusCode(413);
    }
}
