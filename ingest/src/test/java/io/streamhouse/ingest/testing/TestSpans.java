package io.streamhouse.ingest.testing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The tests' span exporter: a CDI {@link io.opentelemetry.sdk.trace.export.SpanExporter} bean replaces Quarkus' OTLP
 * exporter (the test profile turns the SDK on). Spans of every test land here; {@code RecordedSpans} (the tracing
 * module's test jar) picks a test's own by trace id.
 */
@ApplicationScoped
public class TestSpans {
    @Produces
    @Singleton
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }
}
