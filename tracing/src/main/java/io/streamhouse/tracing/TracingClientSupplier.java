package io.streamhouse.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.instrumentation.kafkaclients.v2_6.KafkaTelemetry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;

import java.util.Map;

/**
 * Kafka Streams' clients with tracing on the producers only: each record a stream thread writes gets a publish span
 * and the current trace (the one {@link TracingProcessorWrapper} made current) in its headers. Consumers stay plain:
 * the processor wrapper reads the trace from each record, which costs less than a receive span per poll.
 */
public final class TracingClientSupplier implements KafkaClientSupplier {
    private final KafkaClientSupplier delegate = new DefaultKafkaClientSupplier();
    private final KafkaTelemetry telemetry;

    /** @param openTelemetry with the no-op instance ({@link KafkaTracing#whenEnabled}) the producers are plain */
    public TracingClientSupplier(OpenTelemetry openTelemetry) {
        this.telemetry = KafkaTracing.isOff(openTelemetry) ? null : KafkaTracing.telemetry(openTelemetry);
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return delegate.getAdmin(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return telemetry == null ? delegate.getProducer(config) : telemetry.wrap(delegate.getProducer(config));
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return delegate.getConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return delegate.getRestoreConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return delegate.getGlobalConsumer(config);
    }
}
