package io.streamhouse.api.lineage;

import io.quarkus.runtime.StartupEvent;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.lineage.LineageRun;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Clock;

/**
 * The decision app's lineage run (the Streams application Quarkus' extension runs): START when the app starts,
 * COMPLETE or FAIL from the app's state listener ({@code StreamsWiring}), COMPLETE at the latest when the bean is
 * destroyed. Its inputs and outputs come from the description of a topology built by the same producer method that
 * builds the one Quarkus runs (a pure function of the same beans, so the same description).
 */
@ApplicationScoped
public class DecisionLineage {
    private final LineageRun run;

    public DecisionLineage(ApiConfig config, Topology topology, Clock clock,
                           @ConfigProperty(name = "quarkus.kafka-streams.application-id") String applicationId) {
        this.run = LineageRun.forStreams(applicationId, config.kafka().bootstrapServers(), topology.describe(),
                config.lineage().outputs(), clock,
                io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(io.streamhouse.security.kafka.KafkaPrincipal.DECISIONS).security());
    }

    void onStart(@Observes StartupEvent event) {
        run.start();
    }

    public LineageRun run() {
        return run;
    }

    @PreDestroy
    void close() {
        run.close();
    }
}
