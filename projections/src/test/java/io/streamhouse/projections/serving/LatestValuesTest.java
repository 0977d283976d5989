package io.streamhouse.projections.serving;

import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The decoded latest values in front of a versioned store: always the store's latest version, or its absence. */
class LatestValuesTest {

    /** The latest version per key, a count of reads, and a hook run inside a read after the value was taken. */
    private static final class Store {
        final Map<String, VersionedRecord<String>> latest = new HashMap<>();
        int reads;
        long refuseOlderThan = Long.MIN_VALUE;
        Runnable duringRead = () -> { };

        @SuppressWarnings("unchecked")
        VersionedKeyValueStore<String, String> proxy() {
            return (VersionedKeyValueStore<String, String>) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[]{VersionedKeyValueStore.class}, (self, method, args) -> switch (method.getName()) {
                        case "get" -> {
                            if (args.length != 1) {
                                throw new UnsupportedOperationException("get asOf");
                            }
                            reads++;
                            VersionedRecord<String> read = latest.get((String) args[0]);
                            Runnable hook = duringRead;
                            duringRead = () -> { };
                            hook.run();
                            yield read;
                        }
                        case "put" -> {
                            String key = (String) args[0];
                            long at = (Long) args[2];
                            if (at < refuseOlderThan) {
                                yield VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT;
                            }
                            VersionedRecord<String> current = latest.get(key);
                            if (current != null && at < current.timestamp()) {
                                yield current.timestamp(); // an older version: valid until the current one
                            }
                            latest.put(key, new VersionedRecord<>((String) args[1], at));
                            yield VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED;
                        }
                        case "name" -> "test-store";
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }
    }

    private final Store store = new Store();

    @Test
    void aKeptKeyIsServedAsLastWrittenWithoutReadingTheStore() {
        store.latest.put("k", new VersionedRecord<>("v1", 500));
        LatestValues<String> values = new LatestValues<>(store.proxy(), 10);
        assertThat(values.get("k").value()).isEqualTo("v1");
        values.put("k", "v2", 1_000);
        VersionedRecord<String> read = values.get("k");
        assertThat(read.value()).isEqualTo("v2");
        assertThat(read.timestamp()).isEqualTo(1_000);
        assertThat(read.validTo()).isEmpty();
        assertThat(store.reads).isEqualTo(1);
    }

    @Test
    void aMissReadsTheStoreOnceAndAnAbsenceIsKeptUntilAWrite() {
        store.latest.put("k", new VersionedRecord<>("stored", 500));
        LatestValues<String> values = new LatestValues<>(store.proxy(), 10);
        assertThat(values.get("k").value()).isEqualTo("stored");
        assertThat(values.get("k").value()).isEqualTo("stored");
        assertThat(values.get("unknown")).isNull();
        assertThat(values.get("unknown")).isNull();
        assertThat(store.reads).isEqualTo(2);

        values.put("unknown", "now known", 600);
        assertThat(values.get("unknown").value()).isEqualTo("now known");
        assertThat(store.reads).isEqualTo(2);
    }

    /** A fold over many keys must not fill the heap with states kept only because they were written. */
    @Test
    void theFoldReadsKeptKeysButKeepsNothingItselfReadsOrWrites() {
        store.latest.put("looked-up", new VersionedRecord<>("v1", 1));
        LatestValues<String> values = new LatestValues<>(store.proxy(), 10);
        values.get("looked-up");
        int reads = store.reads;
        assertThat(values.forUpdate("looked-up").value()).isEqualTo("v1");
        assertThat(store.reads).as("a kept key").isEqualTo(reads);

        assertThat(values.forUpdate("only-folded")).isNull();
        values.put("only-folded", "x", 2);
        assertThat(values.forUpdate("only-folded").value()).isEqualTo("x");
        assertThat(store.reads).isEqualTo(reads + 2);
        assertThat(values.size()).isEqualTo(1);
    }

    @Test
    void aWriteThatDidNotBecomeTheLatestVersionIsNotServed() {
        LatestValues<String> values = new LatestValues<>(store.proxy(), 10);
        assertThat(values.get("k")).isNull();
        values.put("k", "new", 2_000);
        assertThat(values.get("k").value()).isEqualTo("new");
        assertThat(values.put("k", "old", 1_000)).isEqualTo(2_000);
        int reads = store.reads;
        assertThat(values.get("k").value()).isEqualTo("new");
        assertThat(store.reads).as("the entry was dropped, not replaced by the older version").isEqualTo(reads + 1);

        store.refuseOlderThan = 5_000;
        assertThat(values.get("k2")).isNull();
        assertThat(values.put("k2", "too old for the history", 1_000)).isEqualTo(VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT);
        assertThat(values.get("k2")).isNull();
    }

    @Test
    void keepsAboutItsCapacityAndReadsEvictedKeysFromTheStore() {
        for (int i = 0; i < 10; i++) {
            store.latest.put("k" + i, new VersionedRecord<>("v" + i, i));
        }
        LatestValues<String> values = new LatestValues<>(store.proxy(), 3);
        for (int i = 0; i < 10; i++) {
            values.get("k" + i);
        }
        assertThat(values.size()).isEqualTo(3);
        assertThat(store.reads).isEqualTo(10);
        assertThat(values.get("k9").value()).isEqualTo("v9");
        assertThat(store.reads).as("the newest is still kept").isEqualTo(10);
        assertThat(values.get("k0").value()).as("evicted, read again").isEqualTo("v0");
        assertThat(store.reads).isEqualTo(11);
        assertThat(values.size()).isEqualTo(3);
    }

    /**
     * A reader misses and reads v1; before it can keep it, the stream thread writes v2 (the key is not kept, so there
     * is no entry to replace). Keeping v1 then would serve, and fold into, a value the store no longer holds, for good.
     */
    @Test
    void aReadThatRacedWithAWriteIsNotKept() {
        store.latest.put("k", new VersionedRecord<>("v1", 1));
        LatestValues<String> values = new LatestValues<>(store.proxy(), 10);
        store.duringRead = () -> values.put("k", "v2", 2);
        assertThat(values.get("k").value()).as("what this read saw").isEqualTo("v1");
        assertThat(values.forUpdate("k").value()).as("what the fold reads next").isEqualTo("v2");
        assertThat(values.get("k").value()).as("the next lookup").isEqualTo("v2");
    }

    /** The same race, with the stream thread's write and then an eviction of the key another reader had kept. */
    @Test
    void aReadThatRacedWithAWriteAndAnEvictionIsNotKept() {
        store.latest.put("k", new VersionedRecord<>("v1", 1));
        store.latest.put("other", new VersionedRecord<>("o", 1));
        LatestValues<String> values = new LatestValues<>(store.proxy(), 1);
        store.duringRead = () -> {
            values.put("k", "v2", 2);
            values.get("other"); // capacity 1
        };
        assertThat(values.get("k").value()).isEqualTo("v1");
        assertThat(values.get("k").value()).isEqualTo("v2");
    }

    @Test
    void capacityZeroAlwaysReadsTheStore() {
        LatestValues<String> values = new LatestValues<>(store.proxy(), 0);
        values.put("k", "v", 1);
        values.get("k");
        values.get("k");
        assertThat(store.reads).isEqualTo(2);
        assertThat(values.size()).isZero();
    }

    @Test
    void readsFailOnceClosedSoThatCallersAskStreams() {
        LatestValues<String> values = new LatestValues<>(store.proxy(), 10);
        values.put("k", "v", 1);
        values.close();
        assertThat(values.size()).isZero();
        assertThatThrownBy(() -> values.get("k")).isInstanceOf(IllegalStateException.class);
    }
    @Test
    void forARebuildTheFoldKeepsWhatItWritesAndReadsItBack() {
        LatestValues<String> values = new LatestValues<>(store.proxy(), 2, true);
        values.put("a", "a1", 10);
        values.put("a", "a2", 20);
        values.put("b", "b1", 10);
        assertThat(values.forUpdate("a").value()).isEqualTo("a2");
        assertThat(values.forUpdate("a").timestamp()).isEqualTo(20);
        assertThat(values.forUpdate("b").value()).isEqualTo("b1");
        assertThat(store.reads).as("both kept as written").isZero();

        values.put("a", "a0", 5); // older than a's latest: not the latest version, so not kept
        assertThat(values.forUpdate("a").value()).isEqualTo("a2");
        assertThat(store.reads).isEqualTo(1);

        values.put("c", "c1", 10); // a third key: about its capacity of 2, the oldest inserted goes
        assertThat(values.size()).isLessThanOrEqualTo(2);
        assertThat(values.forUpdate("c").value()).isEqualTo("c1");
    }
}
