package io.streamhouse.api.testing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.apache.kafka.common.header.Headers;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The tests' span exporter: a CDI {@link io.opentelemetry.sdk.trace.export.SpanExporter} bean replaces Quarkus' OTLP
 * exporter (the test profile turns the SDK on). Spans of every test land here; assertions pick theirs by trace id.
 */
@ApplicationScoped
public class TestSpans {
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");

    @Produces
    @Singleton
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }

    /** The finished spans of one trace. */
    public static List<SpanData> ofTrace(InMemorySpanExporter spans, String traceId) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
    }

    /** True if {@code trace} has a span of this kind about this topic. */
    public static boolean has(List<SpanData> trace, SpanKind kind, String topic) {
        return trace.stream().anyMatch(s -> s.getKind() == kind && topic.equals(s.getAttributes().get(DESTINATION)));
    }

    /** The trace id a record's W3C traceparent header names ({@code 00-<trace>-<span>-<flags>}), or null. */
    public static String traceIdOf(Headers headers) {
        var header = headers.lastHeader("traceparent");
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8).split("-")[1];
    }
}
