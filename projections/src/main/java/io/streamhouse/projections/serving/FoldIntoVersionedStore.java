package io.streamhouse.projections.serving;

import io.streamhouse.domain.topic.DeadLetterHeaders;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Function;

/**
 * Folds each event into its key's state in a versioned store. The version's timestamp is the event time, but never
 * earlier than the key's newest version: a late event is folded into the newest state instead of rewriting history,
 * so {@code asOf(t)} answers "what this projection showed once it had seen every event up to t", and the latest
 * version always includes everything applied.
 *
 * <p>An event the fold cannot apply is not allowed to stop the application (a replaced thread would fail on it
 * again, forever): it is forwarded, re-encoded, with the reason in dead-letter headers, for the caller to route to
 * the source topic's dead-letter topic; the next event is folded as usual.
 */
final class FoldIntoVersionedStore<E, V> implements Processor<String, E, String, byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(FoldIntoVersionedStore.class);
    /** Header naming the dead-letter topic a failed event goes to (read by the sink's topic extractor). */
    static final String DEAD_LETTER_TOPIC = "streamhouse.dlq.target";

    interface Fold<E, V> {
        V apply(V previous, String key, E event);
    }

    private final String storeName;
    private final Fold<E, V> fold;
    private final Function<E, Instant> eventTime;
    private final Function<E, byte[]> encode;
    private final Function<E, String> deadLetterTopic;
    private final OpenStores openStores;
    private ProcessorContext<String, byte[]> context;
    private LatestValues<V> store;

    FoldIntoVersionedStore(String storeName, Fold<E, V> fold, Function<E, Instant> eventTime,
                           Function<E, byte[]> encode, Function<E, String> deadLetterTopic, OpenStores openStores) {
        this.storeName = storeName;
        this.openStores = openStores;
        this.fold = fold;
        this.eventTime = eventTime;
        this.encode = encode;
        this.deadLetterTopic = deadLetterTopic;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
        VersionedKeyValueStore<String, V> versioned = context.getStateStore(storeName);
        this.store = openStores.opened(storeName, context.taskId().partition(), versioned);
    }

    /** Streams closes the processor whenever the task stops being active and running: its store leaves the registry. */
    @Override
    public void close() {
        if (store != null) {
            openStores.closed(storeName, context.taskId().partition(), store);
        }
    }

    @Override
    public void process(Record<String, E> record) {
        try {
            // The store's own failures (a fenced producer, a migrated task, RocksDB) are Streams' to handle: rethrown
            // below. What is dead-lettered is what this event makes the fold do: throw, or build a state that
            // cannot be encoded (the store's serializer runs before anything is written).
            VersionedRecord<V> previous = store.forUpdate(record.key());
            V next = fold.apply(previous == null ? null : previous.value(), record.key(), record.value());
            if (previous != null && next == previous.value()) {
                return; // a duplicate: nothing changed
            }
            long at = eventTime.apply(record.value()).toEpochMilli();
            long version = previous == null ? at : Math.max(at, previous.timestamp());
            store.put(record.key(), next, version);
        } catch (StreamsException e) {
            throw e;
        } catch (RuntimeException e) {
            var meta = context.recordMetadata();
            String where = meta.map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse("?");
            LOG.warn("Dead-lettering event {} (key {}) that {} could not fold: {}", where, record.key(), storeName, e.toString());
            var headers = new RecordHeaders(record.headers().toArray());
            put(headers, DeadLetterHeaders.REASON, storeName + " could not fold the event: " + e);
            put(headers, DeadLetterHeaders.EXCEPTION, e.getClass().getName());
            meta.ifPresent(m -> {
                put(headers, DeadLetterHeaders.SOURCE_TOPIC, m.topic());
                put(headers, DeadLetterHeaders.SOURCE_PARTITION, Integer.toString(m.partition()));
                put(headers, DeadLetterHeaders.SOURCE_OFFSET, Long.toString(m.offset()));
            });
            put(headers, DeadLetterHeaders.PROCESSOR, storeName);
            put(headers, DEAD_LETTER_TOPIC, deadLetterTopic.apply(record.value()));
            context.forward(new Record<>(record.key(), encode.apply(record.value()), record.timestamp(), headers));
        }
    }

    private static void put(RecordHeaders headers, String name, String value) {
        headers.remove(name);
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
