package io.streamhouse.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** A caller's tracestate is free text: it is neither read from a carrier nor written into one. */
class TraceParentOnlyTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN_ID = "00f067aa0ba902b7";
    private static final TextMapGetter<Map<String, String>> MAP = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    @Test
    void injectWritesTheTraceparentAndNoTracestate() {
        SpanContext withState = SpanContext.create(TRACE_ID, SPAN_ID, TraceFlags.getSampled(),
                TraceState.builder().put("vendor", "4111111111111111").build());
        Map<String, String> carrier = new HashMap<>();
        TraceParentOnly.INSTANCE.inject(Context.root().with(Span.wrap(withState)), carrier, Map::put);

        assertThat(carrier).containsOnlyKeys("traceparent").containsEntry("traceparent", "00-" + TRACE_ID + "-" + SPAN_ID + "-01");
    }

    @Test
    void extractKeepsTheTraceAndDropsTheCallersTracestate() {
        Map<String, String> carrier = Map.of("traceparent", "00-" + TRACE_ID + "-" + SPAN_ID + "-01",
                "tracestate", "vendor=4111111111111111");
        SpanContext extracted = Span.fromContext(TraceParentOnly.INSTANCE.extract(Context.root(), carrier, MAP)).getSpanContext();

        assertThat(extracted.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(extracted.getSpanId()).isEqualTo(SPAN_ID);
        assertThat(extracted.isRemote()).isTrue();
        assertThat(extracted.getTraceState().isEmpty()).as("trace state %s", extracted.getTraceState()).isTrue();
    }

    @Test
    void theAppsFindThePropagatorByItsConfiguredName() {
        assertThat(ServiceLoader.load(io.opentelemetry.sdk.autoconfigure.spi.ConfigurablePropagatorProvider.class))
                .anySatisfy(p -> {
                    assertThat(p.getName()).isEqualTo("traceparent");
                    assertThat(p.getPropagator(null)).isSameAs(TraceParentOnly.INSTANCE);
                });
    }
}
