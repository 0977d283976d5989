package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.types.Either;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job's sources and sinks for a bounded run inside this JVM (MiniCluster): each topic's records come, in the
 * order given, from a list; outputs are collected into lists. The lists live in static maps under a run id, because
 * Flink ships sources and sinks to its tasks serialized (same JVM, so the static maps are shared).
 */
final class BoundedRun {
    private static final Map<String, List<?>> INPUTS = new ConcurrentHashMap<>();
    private static final Map<String, List<Object>> OUTPUTS = new ConcurrentHashMap<>();
    /** One registry for every bounded run in this JVM: the late-events serializer registers its schemas here. */
    static final SchemaRegistryClient REGISTRY = new InMemorySchemaRegistryClient();

    private final String id = UUID.randomUUID().toString();

    /** The records a topic delivers, in delivery order. */
    <T extends SpecificRecord> BoundedRun input(Topic<String, T> topic, List<Either<DeadLetter, T>> records) {
        INPUTS.put(id + "/" + topic.name(), List.copyOf(records));
        return this;
    }

    CepSources sources() {
        return sources(RateLimiterStrategy.noOp());
    }

    /** Sources that emit at the pace the strategy allows, e.g. {@code perCheckpoint(n)}: n records per checkpoint. */
    CepSources sources(RateLimiterStrategy pace) {
        String run = id;
        return new CepSources() {
            @Override
            public <T extends SpecificRecord> Source<Either<DeadLetter, T>, ?, ?> of(Topic<String, T> topic) {
                String key = run + "/" + topic.name();
                int count = INPUTS.getOrDefault(key, List.of()).size();
                TypeInformation<Either<DeadLetter, T>> type = WireDeserializationSchema.typeOf(topic.valueType());
                GeneratorFunction<Long, Either<DeadLetter, T>> next = index -> {
                    @SuppressWarnings("unchecked")
                    List<Either<DeadLetter, T>> records = (List<Either<DeadLetter, T>>) INPUTS.get(key);
                    return records.get(index.intValue());
                };
                return new DataGeneratorSource<>(next, count, pace, type);
            }
        };
    }

    CepSinks sinks() {
        return new CepSinks(new Collecting<>(id + "/alerts"), new Collecting<>(id + "/dead-letters"),
                new Collecting<>(id + "/late"), new Collecting<>(id + "/late-facts"));
    }

    RegistryClientFactory registry() {
        return () -> REGISTRY;
    }

    @SuppressWarnings("unchecked")
    List<Alert> alerts() {
        return (List<Alert>) (List<?>) output("alerts");
    }

    @SuppressWarnings("unchecked")
    List<DeadLetter> deadLetters() {
        return (List<DeadLetter>) (List<?>) output("dead-letters");
    }

    @SuppressWarnings("unchecked")
    List<LateRecord> lateEvents() {
        return (List<LateRecord>) (List<?>) output("late");
    }

    /** The facts the CEP library's operators got behind their watermark (engine {@code cep}). */
    @SuppressWarnings("unchecked")
    List<io.streamhouse.domain.state.StampedFact> lateFacts() {
        return (List<io.streamhouse.domain.state.StampedFact>) (List<?>) output("late-facts");
    }

    private List<Object> output(String name) {
        List<Object> out = OUTPUTS.getOrDefault(id + "/" + name, List.of());
        synchronized (out) {
            return new ArrayList<>(out);
        }
    }

    void forget() {
        INPUTS.keySet().removeIf(k -> k.startsWith(id));
        OUTPUTS.keySet().removeIf(k -> k.startsWith(id));
    }

    /** Appends whatever reaches it to a shared list. */
    static final class Collecting<T> implements Sink<T> {
        private final String key;

        Collecting(String key) {
            this.key = key;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            List<Object> out = OUTPUTS.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>()));
            return new SinkWriter<>() {
                @Override
                public void write(T element, Context context) {
                    out.add(element);
                }

                @Override
                public void flush(boolean endOfInput) {
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
