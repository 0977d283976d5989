package io.streamhouse.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quarkus' {@code quarkus.otel.sdk.disabled=true} still hands out an SDK (no exporter, every span recorded): tracing
 * off must mean no spans and no {@code traceparent} on records, so the apps pass it through
 * {@link KafkaTracing#whenEnabled}.
 */
class TracingOffTest {
    /** What the "disabled" SDK amounts to: a tracer provider without processors, sampling everything. */
    private final OpenTelemetry disabledSdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().build())
            .setPropagators(io.opentelemetry.context.propagation.ContextPropagators.create(TraceParentOnly.INSTANCE)).build();

    @Test
    void theDisabledSdkStillMakesSpansAndHeaders() {
        var span = disabledSdk.getTracer("t").spanBuilder("request").startSpan();
        try (var ignored = span.makeCurrent()) {
            var producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
            KafkaTracing.producer(disabledSdk, producer).send(new ProducerRecord<>("t", "k", "v"));
            assertThat(producer.history().get(0).headers().lastHeader("traceparent"))
                    .as("why the apps must not hand it to the Kafka instrumentation").isNotNull();
        } finally {
            span.end();
        }
    }

    @Test
    void tracingOffMeansPlainClientsNoSpansAndNoHeaders() {
        OpenTelemetry off = KafkaTracing.whenEnabled(disabledSdk, true);
        assertThat(KafkaTracing.whenEnabled(disabledSdk, false)).isSameAs(disabledSdk);

        var producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        assertThat(KafkaTracing.producer(off, producer)).isSameAs(producer);
        assertThat(new TracingClientSupplier(off).getProducer(java.util.Map.of(
                "bootstrap.servers", "127.0.0.1:1", "key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class,
                "value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class)))
                .isInstanceOf(org.apache.kafka.clients.producer.KafkaProducer.class);

        var headers = new RecordHeaders().add("traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".getBytes(StandardCharsets.UTF_8));
        assertThat(KafkaTracing.startProcessing(off, "t", headers)).isNull();
        assertThat(KafkaTracing.startProcessing(disabledSdk, "t", headers)).as("the SDK would have made one").isNotNull();
    }
}
