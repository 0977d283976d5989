package io.streamhouse.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The log in a list, for fast tests of the REST layer. It is not compacted, which changes nothing a reader can see:
 * replaying every record in order gives the same state as replaying only the newest per key.
 *
 * <p>One instance can outlive a server, so a test can "restart" a registry on the same store; and writes can be made
 * to fail, to test how failures of the real store surface.
 */
public final class InMemorySchemaStore implements SchemaStore {

    private final List<StoreRecord> log = new ArrayList<>();
    private RuntimeException failure;

    @Override
    public synchronized void replay(Consumer<StoreRecord> sink) {
        List.copyOf(log).forEach(sink);
    }

    @Override
    public synchronized void append(StoreRecord record) {
        if (failure != null) {
            throw new SchemaStoreException("in-memory store set to fail: " + failure.getMessage(), failure);
        }
        log.add(record);
    }

    /** From now on every append fails with this cause; {@code null} heals the store. */
    public synchronized void failWrites(RuntimeException cause) {
        this.failure = cause;
    }

    /** Every record appended so far, oldest first. */
    public synchronized List<StoreRecord> records() {
        return List.copyOf(log);
    }

    @Override
    public void close() {
        // Kept: a test may start another registry on the same records.
    }

    @Override
    public String describe() {
        return "memory";
    }
}
