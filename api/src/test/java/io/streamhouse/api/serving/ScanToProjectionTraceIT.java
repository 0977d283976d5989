package io.streamhouse.api.serving;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.streamhouse.tracing.testing.RecordedSpans;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.projections.serving.LatestValues;
import io.streamhouse.projections.serving.OpenStores;
import io.streamhouse.projections.serving.ServingStores;
import io.streamhouse.projections.serving.ServingTopology;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The serving app's half of the scan-to-projection trace (ingest's ParcelScanResourceIT has the request's half): a
 * scan that comes with a traceparent, as ingest's producer writes it, is folded into the parcel's projection inside
 * that trace. The topology is the one {@link ServingStreams} runs, built the same way; Streams inside a @QuarkusTest
 * cannot fold nested Avro state, so it runs on the test driver here.
 */
class ScanToProjectionTraceIT {
    private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    private static final String PUBLISH_SPAN_ID = "b7ad6b7169203331";

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();

    @AfterEach
    void close() {
        otel.close();
    }

    @Test
    void aScanIsFoldedIntoItsProjectionInsideTheTraceItCameWith() {
        TopicSerdes serdes = new RegistryTopicSerdes(new InMemorySchemaRegistryClient());
        OpenStores openStores = new OpenStores();
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "scan-trace-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        var topology = ServingStreams.tracedTopology(ServingTopology.Config.defaults(), serdes, openStores, otel, props);
        try (var driver = new TopologyTestDriver(topology, props)) {
            var scans = driver.createInputTopic(Topics.PARCEL_SCANS.name(), new StringSerializer(),
                    serdes.valueSerde(Topics.PARCEL_SCANS).serializer());
            ParcelScanned scan = ParcelScanned.newBuilder()
                    .setEnvelope(SampleEvents.envelope("scan-traced", "P-trace", Times.T0, ParcelScanned.class))
                    .setParcelId("P-trace").setHubId(Hubs.ROTTERDAM).setStatus(ParcelStatus.RECEIVED_AT_HUB)
                    .setLocation(Hubs.ROTTERDAM_POS).setPromisedBy(Times.T0.plus(Times.ONE_HOUR)).build();
            var headers = new RecordHeaders().add("traceparent",
                    ("00-" + TRACE_ID + "-" + PUBLISH_SPAN_ID + "-01").getBytes(StandardCharsets.UTF_8));
            scans.pipeInput(new TestRecord<>("P-trace", scan, headers, Times.T0));

            LatestValues<ParcelTracking> tracking = openStores.active(ServingStores.PARCEL_TRACKING, 0);
            assertThat(tracking.get("P-trace").value().getStatus()).as("the projection").isEqualTo("RECEIVED_AT_HUB");
            var trace = RecordedSpans.ofTrace(spans, TRACE_ID);
            assertThat(trace).as("the fold's process span, child of the scan's publish span").anyMatch(s ->
                    s.getKind() == SpanKind.CONSUMER && PUBLISH_SPAN_ID.equals(s.getParentSpanId())
                            && Topics.PARCEL_SCANS.name().equals(s.getAttributes().get(RecordedSpans.DESTINATION)));
        }
    }
}
