package io.streamhouse.projections.serving;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;

import java.time.Instant;
import java.util.function.Function;

/**
 * Folds each event into its key's state in a versioned store. The version's timestamp is the event time, but never
 * earlier than the key's newest version: a late event is folded into the newest state instead of rewriting history,
 * so {@code asOf(t)} answers "what this projection showed once it had seen every event up to t", and the latest
 * version always includes everything applied. Writes to the store only, so nothing is forwarded.
 */
final class FoldIntoVersionedStore<E, V> implements Processor<String, E, Void, Void> {
    interface Fold<E, V> {
        V apply(V previous, String key, E event);
    }

    private final String storeName;
    private final Fold<E, V> fold;
    private final Function<E, Instant> eventTime;
    private VersionedKeyValueStore<String, V> store;

    FoldIntoVersionedStore(String storeName, Fold<E, V> fold, Function<E, Instant> eventTime) {
        this.storeName = storeName;
        this.fold = fold;
        this.eventTime = eventTime;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<String, E> record) {
        VersionedRecord<V> previous = store.get(record.key());
        V next = fold.apply(previous == null ? null : previous.value(), record.key(), record.value());
        if (previous != null && next == previous.value()) {
            return; // a duplicate: nothing changed
        }
        long at = eventTime.apply(record.value()).toEpochMilli();
        long version = previous == null ? at : Math.max(at, previous.timestamp());
        store.put(record.key(), next, version);
    }
}
