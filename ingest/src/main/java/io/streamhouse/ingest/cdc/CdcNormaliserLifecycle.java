package io.streamhouse.ingest.cdc;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamhouse.ingest.IngestConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import java.nio.file.Path;

/**
 * Starts the CDC normaliser with the app when {@code streamhouse.cdc.enabled} (the default; the app's own tests turn
 * it off: a KafkaStreams inside a Quarkus test mixes class loaders) and stops it with the app. Ready only when the
 * Streams instance is RUNNING.
 */
@ApplicationScoped
@Readiness
public class CdcNormaliserLifecycle implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(CdcNormaliserLifecycle.class);

    private final IngestConfig config;
    private volatile CdcNormaliser normaliser;

    public CdcNormaliserLifecycle(IngestConfig config) {
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        if (!config.cdc().enabled()) {
            LOG.info("CDC normaliser disabled (streamhouse.cdc.enabled=false)");
            return;
        }
        normaliser = CdcNormaliser.start(new CdcNormaliser.Settings(config.kafka().bootstrapServers(),
                config.schemaRegistry().url(), Path.of(config.cdc().stateDir()), config.cdc().applicationId(),
                config.cdc().commitInterval()), config.cdc().lineage().outputs());
        LOG.infof("CDC normaliser started: %s -> shop.customers, shop.orders", CdcNormalisationTopology.RAW_TOPIC);
    }

    void onStop(@Observes ShutdownEvent event) {
        CdcNormaliser n = normaliser;
        if (n != null) {
            n.close();
        }
    }

    @Override
    public HealthCheckResponse call() {
        CdcNormaliser n = normaliser;
        if (n == null) {
            return HealthCheckResponse.named("cdc-normaliser").up().withData("enabled", false).build();
        }
        return HealthCheckResponse.named("cdc-normaliser").status(n.isRunning()).withData("state", n.state().toString()).build();
    }
}
