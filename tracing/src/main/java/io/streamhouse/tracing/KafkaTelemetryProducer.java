package io.streamhouse.tracing;

import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Decides once per app whether its Kafka clients are traced: see {@link KafkaTracing#whenEnabled}. */
@Singleton
public class KafkaTelemetryProducer {
    @Produces
    @Singleton
    @ForKafka
    OpenTelemetry forKafka(OpenTelemetry openTelemetry,
                           @ConfigProperty(name = "quarkus.otel.sdk.disabled", defaultValue = "false") boolean sdkDisabled) {
        return KafkaTracing.whenEnabled(openTelemetry, sdkDisabled);
    }
}
