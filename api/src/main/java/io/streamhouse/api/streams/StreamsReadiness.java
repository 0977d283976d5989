package io.streamhouse.api.streams;

import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while Kafka Streams is RUNNING: before that (starting, restoring, rebalancing) the stores may not
 * answer, and Quarkus' own Streams check only covers liveness.
 */
@Readiness
@ApplicationScoped
public class StreamsReadiness implements HealthCheck {
    private final KafkaStreams streams;

    public StreamsReadiness(KafkaStreams streams) {
        this.streams = streams;
    }

    @Override
    public HealthCheckResponse call() {
        KafkaStreams.State state = streams.state();
        return HealthCheckResponse.named("kafka-streams-running")
                .status(state == KafkaStreams.State.RUNNING)
                .withData("state", state.name())
                .build();
    }
}
