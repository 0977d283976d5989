package io.streamhouse.tracing;

import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurablePropagatorProvider;

/**
 * {@code quarkus.otel.propagators=traceparent}: W3C trace context without {@code tracestate}, so that a caller's
 * free text is neither read from HTTP requests nor written onto records, audit events or forwarded requests.
 */
public final class TraceParentPropagatorProvider implements ConfigurablePropagatorProvider {
    public static final String NAME = "traceparent";

    @Override
    public TextMapPropagator getPropagator(ConfigProperties config) {
        return TraceParentOnly.INSTANCE;
    }

    @Override
    public String getName() {
        return NAME;
    }
}
