package io.streamhouse.api.serving;

import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while the serving projections are RUNNING. While they rebalance, queries still answer (from standbys,
 * marked stale), but a load balancer should prefer instances that are not moving partitions.
 */
@Readiness
@ApplicationScoped
public class ServingReadiness implements HealthCheck {
    private final ServingStreams serving;

    public ServingReadiness(ServingStreams serving) {
        this.serving = serving;
    }

    @Override
    public HealthCheckResponse call() {
        if (!serving.enabled()) {
            return HealthCheckResponse.named("serving-projections-running").up().withData("state", "DISABLED").build();
        }
        KafkaStreams.State state = serving.state();
        var router = serving.router();
        return HealthCheckResponse.named("serving-projections-running")
                .status(state == KafkaStreams.State.RUNNING)
                .withData("state", state.name())
                .withData("instance", router == null ? "not started" : router.self().toString())
                .build();
    }
}
