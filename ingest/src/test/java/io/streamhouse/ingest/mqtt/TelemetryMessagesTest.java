package io.streamhouse.ingest.mqtt;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TelemetryMessagesTest {

    @Test
    void onlyTopicsOfTheFormFleetVehicleTelemetryNameAVehicle() {
        assertThat(TelemetryMessages.vehicleIdOf("fleet/truck-7/telemetry")).isEqualTo("truck-7");
        assertThat(TelemetryMessages.vehicleIdOf("fleet//telemetry")).isNull();
        assertThat(TelemetryMessages.vehicleIdOf("fleet/truck-7/position")).isNull();
        assertThat(TelemetryMessages.vehicleIdOf("fleet/a/b/telemetry")).isNull();
        assertThat(TelemetryMessages.vehicleIdOf("depot/truck-7/telemetry")).isNull();
    }
}
