package io.streamhouse.api.streams;

import io.opentelemetry.api.OpenTelemetry;
import io.quarkus.runtime.StartupEvent;
import io.streamhouse.tracing.ForKafka;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import io.streamhouse.api.ApiConfig;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;

/**
 * Not ready until {@link DecisionWarmUp} has run: it starts with the app, beside the decision application's own start,
 * and takes {@code streamhouse.warm-up.requests} synthetic requests (0: none) or {@code streamhouse.warm-up.max-duration},
 * whichever ends first. A warm-up that fails is logged and does not keep the app unready: it only makes the first
 * minute slower.
 */
@Readiness
@ApplicationScoped
public class DecisionWarmUpReadiness implements HealthCheck {
    private static final Logger LOG = Logger.getLogger(DecisionWarmUpReadiness.class);

    private final int requests;
    private final Duration maxDuration;
    private final OpenTelemetry openTelemetry;
    private volatile HealthCheckResponse state;

    @jakarta.inject.Inject
    public DecisionWarmUpReadiness(ApiConfig config, @ForKafka OpenTelemetry openTelemetry) {
        this(config.warmUp().requests(), config.warmUp().maxDuration(), openTelemetry);
    }

    DecisionWarmUpReadiness(int requests, Duration maxDuration, OpenTelemetry openTelemetry) {
        this.requests = requests;
        this.maxDuration = maxDuration;
        this.openTelemetry = openTelemetry;
        this.state = requests > 0 ? response(false).withData("state", "waiting").build()
                : response(true).withData("state", "off").build();
    }

    void onStart(@Observes StartupEvent event) {
        if (requests > 0) {
            Thread thread = new Thread(this::warmUp, "decision-warm-up");
            thread.setDaemon(true);
            thread.start();
        }
    }

    void warmUp() {
        state = response(false).withData("state", "running").build();
        try {
            DecisionWarmUp.Result result = DecisionWarmUp.run(
                    serdes -> StreamsWiring.decisionApp(serdes, Clock.systemUTC(), openTelemetry,
                            io.streamhouse.detection.decision.DecisionTopology.Storage.IN_MEMORY), requests, maxDuration);
            LOG.infof("decision warm-up: %d synthetic requests decided in %d ms", result.requests(), result.took().toMillis());
            state = response(true).withData("state", "done").withData("requests", result.requests())
                    .withData("millis", result.took().toMillis()).build();
        } catch (RuntimeException | Error e) {
            LOG.warn("decision warm-up failed; the first requests will be slower", e);
            state = response(true).withData("state", "failed").withData("error", String.valueOf(e)).build();
        }
    }

    private static org.eclipse.microprofile.health.HealthCheckResponseBuilder response(boolean up) {
        return HealthCheckResponse.named("decision-warm-up").status(up);
    }

    @Override
    public HealthCheckResponse call() {
        return state;
    }
}
