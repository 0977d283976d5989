package io.streamhouse.replay;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Streams' {@code processor.wrapper.class} for a rebuild: every processor of the topology drops a record whose source
 * partition is in the cut at or past the cut's offset, so nothing beyond the cut changes a store or reaches an output,
 * however far the consumer reads ahead. Records from partitions outside the cut (repartition topics, global tables)
 * pass: what reaches a repartition topic was already filtered at its source. Counts the records that entered each
 * application (at the first processor after a source, the DeadLetters decode step) for the progress line.
 */
public final class CutFilter implements ProcessorWrapper {
    /** The cut, {@link Cut#encode() encoded}, in the Streams configuration. */
    public static final String CUT_CONFIG = "streamhouse.replay.cut";
    private static final Map<String, Counts> COUNTS = new ConcurrentHashMap<>();

    /** Records applied and dropped (past the cut) by one application in this JVM. */
    public record Counts(LongAdder applied, LongAdder dropped) {
        Counts() {
            this(new LongAdder(), new LongAdder());
        }
    }

    private Map<TopicPartition, Long> cut = Map.of();
    private Counts counts = new Counts();

    public static Counts countsOf(String applicationId) {
        return COUNTS.computeIfAbsent(applicationId, id -> new Counts());
    }

    @Override
    public void configure(Map<String, ?> configs) {
        cut = Cut.decode((String) configs.get(CUT_CONFIG));
        counts = countsOf(String.valueOf(configs.get(StreamsConfig.APPLICATION_ID_CONFIG)));
    }

    /** True if the record being processed came from a cut partition at or past its cut. */
    private boolean beyondCut(Optional<RecordMetadata> metadata, boolean entry) {
        if (metadata.isEmpty()) {
            return false;
        }
        RecordMetadata m = metadata.get();
        Long end = cut.get(new TopicPartition(m.topic(), m.partition()));
        if (end == null) {
            return false;
        }
        boolean beyond = m.offset() >= end;
        if (entry) {
            (beyond ? counts.dropped() : counts.applied()).increment();
        }
        return beyond;
    }

    @Override
    public <KIn, VIn, KOut, VOut> WrappedProcessorSupplier<KIn, VIn, KOut, VOut> wrapProcessorSupplier(
            String name, ProcessorSupplier<KIn, VIn, KOut, VOut> supplier) {
        boolean entry = name.endsWith("-decode");
        return new WrappedProcessorSupplier<>() {
            @Override
            public Processor<KIn, VIn, KOut, VOut> get() {
                Processor<KIn, VIn, KOut, VOut> inner = supplier.get();
                return new Processor<>() {
                    private ProcessorContext<KOut, VOut> context;

                    @Override
                    public void init(ProcessorContext<KOut, VOut> context) {
                        this.context = context;
                        inner.init(context);
                    }

                    @Override
                    public void process(Record<KIn, VIn> record) {
                        if (!beyondCut(context.recordMetadata(), entry)) {
                            inner.process(record);
                        }
                    }

                    @Override
                    public void close() {
                        inner.close();
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
            String name, FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier) {
        boolean entry = name.endsWith("-decode");
        return new WrappedFixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<KIn, VIn, VOut> get() {
                FixedKeyProcessor<KIn, VIn, VOut> inner = supplier.get();
                return new FixedKeyProcessor<>() {
                    private FixedKeyProcessorContext<KIn, VOut> context;

                    @Override
                    public void init(FixedKeyProcessorContext<KIn, VOut> context) {
                        this.context = context;
                        inner.init(context);
                    }

                    @Override
                    public void process(FixedKeyRecord<KIn, VIn> record) {
                        if (!beyondCut(context.recordMetadata(), entry)) {
                            inner.process(record);
                        }
                    }

                    @Override
                    public void close() {
                        inner.close();
                    }
                };
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return supplier.stores();
            }
        };
    }
}
