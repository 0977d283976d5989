package io.streamhouse.projections.serving;

import io.streamhouse.plumbing.DeadLetterHeaderBuilder;
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
 * version always includes everything applied. The same holds for an event older than the store's history retention
 * behind the newest time it has seen, whose own version the store would refuse: it goes into the newest state.
 * A version is never before 1970 (the changelog record is stamped with it), so an event time before then is folded
 * as a late event at version 0; the caller dead-letters an event too far ahead of its write before it gets here.
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

    /**
     * Another store the fold keeps beside the versioned one, in the same task (so in the same transaction): see
     * {@link ParcelScans.Log}. Its methods run on the task's stream thread, around the fold.
     */
    interface Companion<E, V> {
        void init(ProcessorContext<?, ?> context);

        /** The previous state as the fold should see it (a companion may move parts of it into its own store). */
        V beforeFold(String key, V previous);

        /** Whether the event was applied before (a repeat): then nothing is folded or written. */
        boolean alreadyApplied(String key, E event);

        /** Just before the new state is written (so that a reader who sees that state finds what this wrote). */
        void applied(String key, E event, V next);

        /** When Streams closes the processor. */
        default void close() {
        }
    }

    private static final Companion<Object, Object> NONE = new Companion<>() {
        @Override
        public void init(ProcessorContext<?, ?> context) {
        }

        @Override
        public Object beforeFold(String key, Object previous) {
            return previous;
        }

        @Override
        public boolean alreadyApplied(String key, Object event) {
            return false;
        }

        @Override
        public void applied(String key, Object event, Object next) {
        }
    };

    private final String storeName;
    private final Fold<E, V> fold;
    private final Function<E, Instant> eventTime;
    private final Function<E, byte[]> encode;
    private final Function<E, String> deadLetterTopic;
    private final OpenStores openStores;
    private final Companion<E, V> companion;
    private ProcessorContext<String, byte[]> context;
    private LatestValues<V> store;
    /** The newest version this processor wrote (its task's partition), where a too-old event is folded in. */
    private long newestVersion = Long.MIN_VALUE;

    FoldIntoVersionedStore(String storeName, Fold<E, V> fold, Function<E, Instant> eventTime,
                           Function<E, byte[]> encode, Function<E, String> deadLetterTopic, OpenStores openStores) {
        this(storeName, fold, eventTime, encode, deadLetterTopic, openStores, null);
    }

    @SuppressWarnings("unchecked")
    FoldIntoVersionedStore(String storeName, Fold<E, V> fold, Function<E, Instant> eventTime, Function<E, byte[]> encode,
                           Function<E, String> deadLetterTopic, OpenStores openStores, Companion<E, V> companion) {
        this.companion = companion == null ? (Companion<E, V>) (Companion<?, ?>) NONE : companion;
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
        companion.init(context);
    }

    /** Streams closes the processor whenever the task stops being active and running: its store leaves the registry. */
    @Override
    public void close() {
        if (store != null) {
            openStores.closed(storeName, context.taskId().partition(), store);
        }
        companion.close();
    }

    @Override
    public void process(Record<String, E> record) {
        try {
            // The store's own failures (a fenced producer, a migrated task, RocksDB) are Streams' to handle: rethrown
            // below. What is dead-lettered is what this event makes the fold do: throw, or build a state that
            // cannot be encoded (the store's serializer runs before anything is written).
            VersionedRecord<V> previous = store.forUpdate(record.key());
            V before = companion.beforeFold(record.key(), previous == null ? null : previous.value());
            if (companion.alreadyApplied(record.key(), record.value())) {
                return; // a repeat the companion store still holds
            }
            V next = fold.apply(before, record.key(), record.value());
            if (previous != null && next == before) {
                return; // a duplicate: nothing changed
            }
            long at = eventTime.apply(record.value()).toEpochMilli();
            // A version is a changelog record's timestamp, which cannot be before 1970: an event from before then is
            // folded as a late one, at the earliest version a store holds. (One too far ahead of its write never
            // gets here: it is dead-lettered when read.)
            long version = Math.max(0, previous == null ? at : Math.max(at, previous.timestamp()));
            // The companion's entry first: a reader that sees the new state then finds its entry too.
            companion.applied(record.key(), record.value(), next);
            if (store.put(record.key(), next, version) == VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT) {
                // Older than the store's history retention behind the newest time it has seen (a key first seen, or
                // last changed, that long ago): the store refuses the version, so the event is folded into the newest
                // state as any late event is, rather than lost without a word.
                long newest = Math.max(newestVersion, context.currentStreamTimeMs());
                if (newest <= version || store.put(record.key(), next, newest) == VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT) {
                    throw new IllegalStateException("the event's time " + Instant.ofEpochMilli(at) + " is older than "
                            + storeName + "'s history retention behind the newest time it has seen");
                }
                version = newest;
            }
            newestVersion = Math.max(newestVersion, version);
        } catch (StreamsException e) {
            throw e;
        } catch (RuntimeException e) {
            var meta = context.recordMetadata();
            String where = meta.map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse("?");
            LOG.warn("Dead-lettering event {} (key {}) that {} could not fold: {}", where, record.key(), storeName, e.toString());
            var why = DeadLetterHeaderBuilder.because(storeName + " could not fold the event: " + e).exception(e);
            meta.ifPresent(m -> why.source(m.topic(), m.partition(), m.offset()));
            var headers = why.processor(storeName).onto(record.headers());
            headers.remove(DEAD_LETTER_TOPIC);
            headers.add(DEAD_LETTER_TOPIC, deadLetterTopic.apply(record.value()).getBytes(StandardCharsets.UTF_8));
            context.forward(new Record<>(record.key(), encode.apply(record.value()), record.timestamp(), headers));
        }
    }
}
