package io.streamhouse.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorWrapper;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.api.WrappedFixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.WrappedProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Kafka Streams' {@code processor.wrapper.class}: the first processor a record reaches opens a "{@code <topic>
 * process}" span in the trace of the record's {@code traceparent} header and keeps it current until the record
 * (and everything it forwards downstream, synchronously) is processed, so what the stream thread writes meanwhile,
 * through a {@link TracingClientSupplier} producer, carries the same trace. Downstream processors find the span
 * already current and only delegate. Records without the header (punctuations, restores) run untraced.
 */
public final class TracingProcessorWrapper implements ProcessorWrapper {
    private OpenTelemetry openTelemetry = OpenTelemetry.noop();

    @Override
    public void configure(Map<String, ?> configs) {
        openTelemetry = KafkaTracing.openTelemetryOf(configs);
    }

    @Override
    public <KIn, VIn, KOut, VOut> WrappedProcessorSupplier<KIn, VIn, KOut, VOut> wrapProcessorSupplier(
            String processorName, ProcessorSupplier<KIn, VIn, KOut, VOut> supplier) {
        OpenTelemetry otel = openTelemetry;
        return new WrappedProcessorSupplier<>() {
            @Override
            public Processor<KIn, VIn, KOut, VOut> get() {
                Processor<KIn, VIn, KOut, VOut> delegate = supplier.get();
                return new Processor<>() {
                    private ProcessorContext<KOut, VOut> context;

                    @Override
                    public void init(ProcessorContext<KOut, VOut> context) {
                        this.context = context;
                        delegate.init(context);
                    }

                    @Override
                    public void process(Record<KIn, VIn> record) {
                        traced(otel, context.recordMetadata().map(RecordMetadata::topic).orElse(processorName),
                                record.headers(), () -> delegate.process(record));
                    }

                    @Override
                    public void close() {
                        delegate.close();
                    }
                };
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return supplier.stores();
            }
        };
    }

    @Override
    public <KIn, VIn, VOut> WrappedFixedKeyProcessorSupplier<KIn, VIn, VOut> wrapFixedKeyProcessorSupplier(
            String processorName, FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier) {
        OpenTelemetry otel = openTelemetry;
        return new WrappedFixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<KIn, VIn, VOut> get() {
                FixedKeyProcessor<KIn, VIn, VOut> delegate = supplier.get();
                return new FixedKeyProcessor<>() {
                    private FixedKeyProcessorContext<KIn, VOut> context;

                    @Override
                    public void init(FixedKeyProcessorContext<KIn, VOut> context) {
                        this.context = context;
                        delegate.init(context);
                    }

                    @Override
                    public void process(FixedKeyRecord<KIn, VIn> record) {
                        traced(otel, context.recordMetadata().map(RecordMetadata::topic).orElse(processorName),
                                record.headers(), () -> delegate.process(record));
                    }

                    @Override
                    public void close() {
                        delegate.close();
                    }
                };
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return supplier.stores();
            }
        };
    }

    private static void traced(OpenTelemetry otel, String topic, Headers headers, Runnable process) {
        if (Span.current().getSpanContext().isValid()) {
            process.run(); // an upstream processor of the same record already made its trace current
            return;
        }
        Span span = KafkaTracing.startProcessing(otel, topic, headers);
        if (span == null) {
            process.run();
            return;
        }
        try (Scope ignored = span.makeCurrent()) {
            process.run();
        } catch (RuntimeException e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR);
            throw e;
        } finally {
            span.end();
        }
    }
}
