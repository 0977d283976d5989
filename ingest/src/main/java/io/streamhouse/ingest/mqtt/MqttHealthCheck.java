package io.streamhouse.ingest.mqtt;

import io.streamhouse.ingest.IngestConfig;
import io.smallrye.health.api.HealthGroup;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

/**
 * {@code GET /q/health/group/mqtt}: is the bridge subscribed? Deliberately not part of readiness: HTTP ingest works
 * without the MQTT broker, and taking an instance out of the load balancer for it would stop that too.
 */
@HealthGroup("mqtt")
@ApplicationScoped
public class MqttHealthCheck implements HealthCheck {
    private final MqttTelemetryBridge bridge;
    private final IngestConfig.Mqtt config;

    public MqttHealthCheck(MqttTelemetryBridge bridge, IngestConfig config) {
        this.bridge = bridge;
        this.config = config.mqtt();
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("mqtt-telemetry-bridge");
        if (config.url().isEmpty()) {
            return response.up().withData("enabled", false).build();
        }
        return response.status(bridge.isSubscribed())
                .withData("enabled", true)
                .withData("url", config.url().get())
                .withData("topicFilter", config.topicFilter())
                .build();
    }
}
