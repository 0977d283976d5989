package io.streamhouse.ingest.telemetry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.ingest.http.FieldError;
import io.streamhouse.ingest.http.JsonFields;
import org.junit.jupiter.api.Test;

import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

class TelemetryParserTest {
    static final ObjectMapper JSON = new ObjectMapper();
    final TelemetryParser parser = new TelemetryParser("ingest-test");

    static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }

    static String reading(String vehicle, String occurredAt) {
        return """
                {"vehicleId": "%s", "occurredAt": "%s", "position": {"lat": 51.92, "lon": 4.47},
                 "speedKmh": 82.5, "coolantTempC": 91, "odometerKm": 120345.7, "faultCodes": ["P0217"]}"""
                .formatted(vehicle, occurredAt);
    }

    @Test
    void aValidReadingBecomesTheEventWithAnIdDerivedFromVehicleAndTime() throws Exception {
        var fields = new JsonFields();
        var first = parser.parse(json(reading("truck-7", "2026-03-02T09:00:00Z")), "", T0, fields, null);
        var sameInstantOtherSpelling = parser.parse(json(reading("truck-7", "2026-03-02T09:00:00.000Z")), "", T0.plusSeconds(5), fields, null);
        var otherTime = parser.parse(json(reading("truck-7", "2026-03-02T09:00:01Z")), "", T0, fields, null);

        assertThat(fields.errors()).isEmpty();
        assertThat(first.event().getSpeedKmh()).isEqualTo(82.5);
        assertThat(first.event().getFaultCodes()).containsExactly("P0217");
        assertThat(first.event().getEnvelope().getKey()).isEqualTo("truck-7");
        assertThat(first.event().getEnvelope().getSource()).isEqualTo("ingest-test");
        assertThat(first.eventId()).isEqualTo(sameInstantOtherSpelling.eventId()).isNotEqualTo(otherTime.eventId());
        assertThat(first.eventIdField()).isEqualTo("occurredAt");
    }

    @Test
    void aClientEventIdIsKeptInLowerCase() throws Exception {
        var fields = new JsonFields();
        var s = parser.parse(json("""
                {"eventId": "0B6F2C1E-6F4A-4C8E-9A57-2F1D3C4B5A69", "vehicleId": "v1", "occurredAt": "2026-03-02T09:00:00Z",
                 "position": {"lat": 0, "lon": 0}, "speedKmh": 0, "coolantTempC": 20, "odometerKm": 0}"""), "", T0, fields, null);
        assertThat(fields.errors()).isEmpty();
        assertThat(s.eventId()).isEqualTo("0b6f2c1e-6f4a-4c8e-9a57-2f1d3c4b5a69");
        assertThat(s.eventIdField()).isEqualTo("eventId");
        assertThat(s.event().getFaultCodes()).isEmpty();
    }

    @Test
    void everyOutOfRangeOrMalformedFieldIsNamed() throws Exception {
        var fields = new JsonFields();
        var s = parser.parse(json("""
                {"eventId": "not-a-uuid", "vehicleId": "bad id", "occurredAt": "2026-03-02T10:00:00Z",
                 "position": {"lat": 91, "lon": -181}, "speedKmh": 401, "coolantTempC": -61, "odometerKm": -1,
                 "faultCodes": ["P0217", "P4217", "X0000", 17], "colour": "red"}"""), "", T0, fields, null);
        assertThat(s).isNull();
        assertThat(fields.errors()).extracting(FieldError::field).containsExactlyInAnyOrder(
                "colour", "eventId", "vehicleId", "occurredAt", "position.lat", "position.lon", "speedKmh", "coolantTempC",
                "odometerKm", "faultCodes[1]", "faultCodes[2]", "faultCodes[3]");
        assertThat(fields.errors()).filteredOn(e -> e.field().equals("speedKmh")).extracting(FieldError::message)
                .containsExactly("must be between 0 and 400");
    }

    @Test
    void theMqttTopicNamesTheVehicleWhenTheBodyDoesNotAndMustAgreeWhenItDoes() throws Exception {
        var fields = new JsonFields();
        var fromTopic = parser.parse(json("""
                {"occurredAt": "2026-03-02T09:00:00Z", "position": {"lat": 1, "lon": 2}, "speedKmh": 1,
                 "coolantTempC": 80, "odometerKm": 5}"""), "", T0, fields, "van-3");
        assertThat(fields.errors()).isEmpty();
        assertThat(fromTopic.event().getVehicleId()).isEqualTo("van-3");
        assertThat(fromTopic.key()).isEqualTo("van-3");

        var mismatch = parser.parse(json(reading("truck-7", "2026-03-02T09:00:00Z")), "", T0, fields, "van-3");
        assertThat(mismatch).isNull();
        assertThat(fields.errors()).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("vehicleId");
            assertThat(e.message()).contains("truck-7").contains("van-3");
        });
    }
}
