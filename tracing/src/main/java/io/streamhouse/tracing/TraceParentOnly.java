package io.streamhouse.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;

import java.util.Collection;
import java.util.List;

/**
 * The trace context Streamhouse writes onto records: the W3C {@code traceparent} (hex ids and flags) and nothing else.
 * A caller's {@code tracestate} is free text (a PAN fits in it) and W3C propagation would copy it from an HTTP request
 * onto every record the request writes, so it is neither read nor written: spans, records and forwarded requests
 * carry the trace and span ids only. Used for the apps' HTTP side through {@link TraceParentPropagatorProvider} and
 * for every Kafka client {@link KafkaTracing} wraps, whatever the global propagators. docs/pii.md, "Tracing
 * headers".
 */
final class TraceParentOnly implements TextMapPropagator {
    static final String TRACEPARENT = "traceparent";
    private static final TextMapPropagator W3C = W3CTraceContextPropagator.getInstance();
    static final TraceParentOnly INSTANCE = new TraceParentOnly();

    private TraceParentOnly() {
    }

    /** {@code openTelemetry} with its tracers and meters, writing only {@code traceparent} into carriers. */
    static OpenTelemetry onTopics(OpenTelemetry openTelemetry) {
        ContextPropagators propagators = ContextPropagators.create(INSTANCE);
        return new OpenTelemetry() {
            @Override
            public TracerProvider getTracerProvider() {
                return openTelemetry.getTracerProvider();
            }

            @Override
            public MeterProvider getMeterProvider() {
                return openTelemetry.getMeterProvider();
            }

            @Override
            public LoggerProvider getLogsBridge() {
                return openTelemetry.getLogsBridge();
            }

            @Override
            public ContextPropagators getPropagators() {
                return propagators;
            }
        };
    }

    @Override
    public Collection<String> fields() {
        return List.of(TRACEPARENT);
    }

    @Override
    public <C> void inject(Context context, C carrier, TextMapSetter<C> setter) {
        W3C.inject(context, carrier, (c, key, value) -> {
            if (TRACEPARENT.equals(key)) {
                setter.set(c, key, value);
            }
        });
    }

    @Override
    public <C> Context extract(Context context, C carrier, TextMapGetter<C> getter) {
        return W3C.extract(context, carrier, new TextMapGetter<>() {
            @Override
            public Iterable<String> keys(C c) {
                return getter.keys(c);
            }

            @Override
            public String get(C c, String key) {
                return TRACEPARENT.equals(key) ? getter.get(c, key) : null;
            }
        });
    }
}
