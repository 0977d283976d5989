package io.streamhouse.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.instrumentation.kafkaclients.v2_6.KafkaTelemetry;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The trace context of a Kafka record is its W3C {@code traceparent} header (plus {@code tracestate}, baggage): written
 * by {@link #producer wrapped producers}, read back here by whoever processes the record. The header is an addition
 * to the record, never part of the Avro value, so the wire format of the value is unchanged and a reader that
 * ignores headers sees nothing new. A record without the header starts no span: processing it costs one header
 * look-up.
 */
public final class KafkaTracing {
    /** Instrumentation scope of the spans made here. */
    public static final String SCOPE = "io.streamhouse.tracing";
    /** Where {@link TracingProcessorWrapper} finds the OpenTelemetry instance in the topology's configuration. */
    public static final String OPEN_TELEMETRY_CONFIG = "streamhouse.tracing.open-telemetry";

    private static final TextMapGetter<Headers> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
            List<String> keys = new ArrayList<>();
            for (Header header : carrier) {
                keys.add(header.key());
            }
            return keys;
        }

        @Override
        public String get(Headers carrier, String key) {
            if (carrier == null) {
                return null;
            }
            Header header = carrier.lastHeader(key);
            return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        }
    };

    private KafkaTracing() {
    }

    /**
     * What the apps' Kafka instrumentation uses: {@code openTelemetry}, or the no-op instance when tracing is off
     * ({@code quarkus.otel.sdk.disabled=true}). Quarkus' "disabled" SDK is still an SDK: without exporters, but with a
     * sampler that records every span, so each record would still cost a span or two and carry a {@code traceparent}
     * (a tenth of the decision app's CPU at 1,000 authorizations/s, docs/benchmarks-history.md). With the no-op
     * instance the producers, consumers and topologies are the plain ones.
     */
    public static OpenTelemetry whenEnabled(OpenTelemetry openTelemetry, boolean sdkDisabled) {
        return sdkDisabled ? OpenTelemetry.noop() : openTelemetry;
    }

    /** True when {@code openTelemetry} traces nothing (the no-op instance): nothing needs wrapping. */
    static boolean isOff(OpenTelemetry openTelemetry) {
        return openTelemetry == OpenTelemetry.noop();
    }

    /**
     * A producer that writes a publish span and the current trace into each record's headers; the producer itself
     * when tracing is off.
     */
    public static <K, V> Producer<K, V> producer(OpenTelemetry openTelemetry, Producer<K, V> producer) {
        return isOff(openTelemetry) ? producer : telemetry(openTelemetry).wrap(producer);
    }

    /** Kafka client instrumentation that writes {@code traceparent} only, never a caller's {@code tracestate}. */
    static KafkaTelemetry telemetry(OpenTelemetry openTelemetry) {
        return KafkaTelemetry.create(TraceParentOnly.onTopics(openTelemetry));
    }

    /** The trace a record's headers carry; the root context when they carry none. */
    public static Context extract(OpenTelemetry openTelemetry, Headers headers) {
        return openTelemetry.getPropagators().getTextMapPropagator().extract(Context.root(), headers, HEADERS);
    }

    /**
     * A CONSUMER span "{@code <topic> process}" child of the trace in {@code headers}, or null when they carry none.
     * The caller ends it.
     */
    public static Span startProcessing(OpenTelemetry openTelemetry, String topic, Headers headers) {
        if (isOff(openTelemetry)) {
            return null;
        }
        Context parent = extract(openTelemetry, headers);
        if (!Span.fromContext(parent).getSpanContext().isValid()) {
            return null;
        }
        return openTelemetry.getTracer(SCOPE).spanBuilder(topic + " process")
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(parent)
                .setAttribute("messaging.system", "kafka")
                .setAttribute("messaging.destination.name", topic)
                .setAttribute("messaging.operation.type", "process")
                .startSpan();
    }

    /**
     * A StreamsBuilder whose processors run each record inside its incoming trace ({@link TracingProcessorWrapper}).
     * The wrapper must be given when the topology is built: Streams applies it to the processors as they are added.
     * Tracing off: a plain StreamsBuilder.
     */
    public static StreamsBuilder streamsBuilder(OpenTelemetry openTelemetry, Properties streamsProperties) {
        if (isOff(openTelemetry)) {
            return new StreamsBuilder(new TopologyConfig(new StreamsConfig(streamsProperties)));
        }
        Properties overrides = new Properties();
        overrides.put(StreamsConfig.PROCESSOR_WRAPPER_CLASS_CONFIG, TracingProcessorWrapper.class);
        overrides.put(OPEN_TELEMETRY_CONFIG, openTelemetry);
        Properties all = new Properties();
        all.putAll(streamsProperties);
        all.putAll(overrides);
        return new StreamsBuilder(new TopologyConfig(null, new StreamsConfig(all), overrides));
    }

    /** The same, for a topology whose Streams properties are given later (only the wrapper matters when building). */
    public static StreamsBuilder streamsBuilder(OpenTelemetry openTelemetry) {
        Properties minimal = new Properties();
        minimal.put(StreamsConfig.APPLICATION_ID_CONFIG, "topology-build");
        minimal.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        return streamsBuilder(openTelemetry, minimal);
    }

    static OpenTelemetry openTelemetryOf(Map<String, ?> configs) {
        Object value = configs.get(OPEN_TELEMETRY_CONFIG);
        return value instanceof OpenTelemetry o ? o : OpenTelemetry.noop();
    }
}
