package io.streamhouse.registry;

import java.util.function.Consumer;

/**
 * Where the registry's log lives. The registry keeps everything in memory and uses the store only to survive
 * restarts: it replays the log once when it starts and appends one record per change.
 *
 * <p>Implementations: {@link KafkaSchemaStore} (a single-partition compacted topic, like Confluent's {@code _schemas})
 * and {@link InMemorySchemaStore} (tests).
 */
public interface SchemaStore extends AutoCloseable {

    /** Hands every stored record to {@code sink}, oldest first, up to the end of the log as of this call. */
    void replay(Consumer<StoreRecord> sink);

    /**
     * Stores one record and returns only once it is durable (for Kafka: acknowledged by all in-sync replicas).
     *
     * @throws SchemaStoreException if that cannot be confirmed; the record may or may not have been stored, so the
     *     caller must not assume either (the registry replays the log before its next change)
     */
    void append(StoreRecord record);

    /** Releases clients and threads. */
    @Override
    void close();

    /** Human-readable location, for logs. */
    String describe();
}
