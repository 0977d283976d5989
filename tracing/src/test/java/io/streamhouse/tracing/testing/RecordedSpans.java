package io.streamhouse.tracing.testing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.apache.kafka.common.header.Headers;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reading the spans the apps' tests record (each app's test {@code InMemorySpanExporter} bean) and the trace a record
 * carries: what ingest's and the api's trace tests look for. Spans of every test land in one exporter; a test picks
 * its own by trace id.
 */
public final class RecordedSpans {
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");

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

    private RecordedSpans() {
    }
}
