package io.streamhouse.tracing;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A record's trace is current while the topology processes it: one span per record, child of its header's span. */
class TracingProcessorWrapperTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_SPAN_ID = "00f067aa0ba902b7";

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();

    @AfterEach
    void close() {
        otel.close();
    }

    private TopologyTestDriver driver() {
        StreamsBuilder builder = KafkaTracing.streamsBuilder(otel);
        builder.stream("in", org.apache.kafka.streams.kstream.Consumed.with(Serdes.String(), Serdes.String()))
                .mapValues(v -> v.toUpperCase(), Named.as("upper"))
                .filter((k, v) -> true, Named.as("keep"))
                .processValues(() -> new org.apache.kafka.streams.processor.api.FixedKeyProcessor<String, String, String>() {
                    private org.apache.kafka.streams.processor.api.FixedKeyProcessorContext<String, String> context;

                    @Override
                    public void init(org.apache.kafka.streams.processor.api.FixedKeyProcessorContext<String, String> context) {
                        this.context = context;
                    }

                    @Override
                    public void process(org.apache.kafka.streams.processor.api.FixedKeyRecord<String, String> record) {
                        // What a sink's producer sees: the trace current while the record is processed.
                        String current = io.opentelemetry.api.trace.Span.current().getSpanContext().getTraceId();
                        context.forward(record.withValue(record.value() + "@" + current));
                    }
                }, Named.as("stamp"))
                .to("out", org.apache.kafka.streams.kstream.Produced.with(Serdes.String(), Serdes.String()));
        var props = new java.util.Properties();
        props.put("application.id", "tracing-test");
        props.put("bootstrap.servers", "unused:9092");
        return new TopologyTestDriver(builder.build(), props);
    }

    @Test
    void theRecordsTraceIsCurrentWhileItIsProcessed() {
        try (var driver = driver()) {
            var in = driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
            var out = driver.createOutputTopic("out", Serdes.String().deserializer(), Serdes.String().deserializer());
            var headers = new RecordHeaders().add("traceparent",
                    ("00-" + TRACE_ID + "-" + PARENT_SPAN_ID + "-01").getBytes(StandardCharsets.UTF_8));
            in.pipeInput(new TestRecord<>("k", "v", headers));

            assertThat(out.readValue()).isEqualTo("V@" + TRACE_ID);
            List<SpanData> finished = spans.getFinishedSpanItems();
            assertThat(finished).singleElement().satisfies(span -> {
                assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
                assertThat(span.getParentSpanId()).isEqualTo(PARENT_SPAN_ID);
                assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
                assertThat(span.getName()).isEqualTo("in process");
            });
        }
    }

    @Test
    void aRecordWithoutTraceRunsUntraced() {
        try (var driver = driver()) {
            var in = driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
            var out = driver.createOutputTopic("out", Serdes.String().deserializer(), Serdes.String().deserializer());
            in.pipeInput("k", "v");

            assertThat(out.readValue()).isEqualTo("V@00000000000000000000000000000000");
            assertThat(spans.getFinishedSpanItems()).isEmpty();
        }
    }

    @Test
    void aMalformedTraceparentIsIgnoredAndTheRecordStillProcessed() {
        try (var driver = driver()) {
            var in = driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
            var out = driver.createOutputTopic("out", Serdes.String().deserializer(), Serdes.String().deserializer());
            var headers = new RecordHeaders().add("traceparent", "not-a-trace".getBytes(StandardCharsets.UTF_8))
                    .add("x-other", new byte[]{1, 2, 3});
            in.pipeInput(new TestRecord<>("k", "v", headers));

            var record = out.readRecord();
            assertThat(record.value()).isEqualTo("V@00000000000000000000000000000000");
            assertThat(record.headers().lastHeader("x-other").value()).as("other headers pass through").containsExactly(1, 2, 3);
            assertThat(spans.getFinishedSpanItems()).isEmpty();
        }
    }
}
