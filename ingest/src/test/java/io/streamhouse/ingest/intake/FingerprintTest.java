package io.streamhouse.ingest.intake;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.ingest.http.JsonFields;
import io.streamhouse.ingest.telemetry.TelemetryParser;
import org.junit.jupiter.api.Test;

import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

class FingerprintTest {

    static Submission<VehicleTelemetry> reading(String source, double speed, java.time.Instant recordedAt) throws Exception {
        var json = new ObjectMapper().readTree("""
                {"vehicleId": "truck-7", "occurredAt": "2026-03-02T09:00:00Z", "position": {"lat": 1, "lon": 2},
                 "speedKmh": %s, "coolantTempC": 90, "odometerKm": 10}""".formatted(speed));
        return new TelemetryParser(source).parse(json, "", recordedAt, new JsonFields(), null);
    }

    @Test
    void whatTheEdgeStampsDoesNotCountAndIsPutBack() throws Exception {
        var viaHttp = reading("ingest-http", 50, T0);
        var viaMqttLater = reading("ingest-mqtt", 50, T0.plusSeconds(30));
        var faster = reading("ingest-http", 51, T0);

        assertThat(viaHttp.fingerprint()).isEqualTo(viaMqttLater.fingerprint()).isNotEqualTo(faster.fingerprint());
        assertThat(viaMqttLater.event().getEnvelope().getSource()).isEqualTo("ingest-mqtt");
        assertThat(viaMqttLater.event().getEnvelope().getRecordedAt()).isEqualTo(T0.plusSeconds(30));
    }
}
