package io.streamhouse.detection.cep;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * For {@link CepBenchmark}: the part of a job's wall time in which it processes records, from the first record any
 * of its sources decodes to the last end of input any of its sinks sees (after every upstream operator finished,
 * including the timers a matcher fires at the end of input). What it leaves out is what every job pays once: the
 * MiniCluster's start, the job's submission and deployment, the sources' start-up (Kafka connection, split
 * assignment), and the job's teardown. Both ends are read in the benchmark's JVM ({@code System.nanoTime}), where the
 * MiniCluster runs: the marks are static, so one job at a time ({@link #reset} before each).
 */
final class ProcessingWindow {
    private static final AtomicLong FIRST_RECORD = new AtomicLong();
    private static final AtomicLong LAST_END_OF_INPUT = new AtomicLong();

    static void reset() {
        FIRST_RECORD.set(0);
        LAST_END_OF_INPUT.set(0);
    }

    /** Seconds from the first decoded record to the last end of input, or NaN when either mark is missing. */
    static double seconds() {
        long first = FIRST_RECORD.get();
        long last = LAST_END_OF_INPUT.get();
        return first == 0 || last == 0 || last < first ? Double.NaN : (last - first) / 1e9;
    }

    /** The job's decoding, unchanged, marking the first record it is given. */
    static <T> KafkaRecordDeserializationSchema<T> marking(KafkaRecordDeserializationSchema<T> decoding) {
        return new KafkaRecordDeserializationSchema<>() {
            @Override
            public void open(DeserializationSchema.InitializationContext context) throws Exception {
                decoding.open(context);
            }

            @Override
            public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<T> out) throws IOException {
                if (FIRST_RECORD.get() == 0) {
                    FIRST_RECORD.compareAndSet(0, System.nanoTime());
                }
                decoding.deserialize(record, out);
            }

            @Override
            public TypeInformation<T> getProducedType() {
                return decoding.getProducedType();
            }
        };
    }

    /** A discarding sink that marks when it sees the end of its input. */
    static <T> Sink<T> discarding() {
        return new Sink<T>() {
            @Override
            public SinkWriter<T> createWriter(WriterInitContext context) {
                return new SinkWriter<>() {
                    @Override
                    public void write(T element, Context context) {
                    }

                    @Override
                    public void flush(boolean endOfInput) {
                        if (endOfInput) {
                            LAST_END_OF_INPUT.accumulateAndGet(System.nanoTime(), Math::max);
                        }
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
    }

    private ProcessingWindow() {
    }
}
