package io.streamhouse.api.streams;

import jakarta.enterprise.context.ApplicationScoped;
import io.streamhouse.detection.decision.DecisionTopology;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while Kafka Streams is RUNNING and the rule set has been loaded: before that (starting, restoring,
 * rebalancing) the stores may not answer, and a decider without rules would allow everything. Quarkus' own
 * Streams check only covers liveness.
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
        long rules = 0;
        if (state == KafkaStreams.State.RUNNING) {
            try {
                // Counted, not approximateNumEntries(): RocksDB's estimate can read 0 (or 3 of 9) for a few
                // freshly written keys, which kept readiness down with the rules loaded. A rule set is small.
                try (var all = streams.store(StoreQueryParameters.fromNameAndType(DecisionTopology.RULES_STORE,
                        QueryableStoreTypes.keyValueStore())).all()) {
                    while (all.hasNext()) {
                        all.next();
                        rules++;
                    }
                }
            } catch (InvalidStateStoreException e) {
                rules = 0;
            }
        }
        return HealthCheckResponse.named("kafka-streams-running")
                .status(state == KafkaStreams.State.RUNNING && rules > 0)
                .withData("state", state.name())
                .withData("rules", rules)
                .build();
    }
}
