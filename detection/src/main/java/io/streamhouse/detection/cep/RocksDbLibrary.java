package io.streamhouse.detection.cep;

import java.net.URL;
import java.security.CodeSource;
import java.util.Optional;

/**
 * Checks that Flink's RocksDB state backend gets the RocksDB it is built for. Flink ships frocksdb
 * ({@code com.ververica:frocksdbjni}); Kafka Streams ships {@code org.rocksdb:rocksdbjni}. Both define the same
 * {@code org.rocksdb} classes and native library, so on a classpath that has both, whichever comes first wins, class
 * by class — and nothing fails at start: Flink runs on the other RocksDB, taking only frocksdb's own extra classes
 * (such as {@code FlinkCompactionFilter}) from frocksdbjni. With rocksdbjni 9.7.3 first, every checkpoint of this job
 * failed ({@code RocksDBStateUploader: streamStateHandle cannot be null}): that RocksDB lists the open, empty
 * write-ahead log among a native checkpoint's files (Flink writes state with the WAL disabled), and Flink cannot
 * store an empty file. docs/benchmarks.md has the history.
 *
 * <p>The test: {@code org.rocksdb.RocksDB} must come from the same place as {@code org.rocksdb.FlinkCompactionFilter},
 * which only frocksdb has. Classes are looked up without initialising them, so no native library is loaded.
 */
public final class RocksDbLibrary {
    static final String ROCKSDB = "org.rocksdb.RocksDB";
    static final String FROCKSDB_ONLY = "org.rocksdb.FlinkCompactionFilter";

    /** Throws if this JVM would run Flink's RocksDB backend on another RocksDB than frocksdb. */
    public static void requireFrocksdb() {
        ClassLoader loader = RocksDbLibrary.class.getClassLoader();
        problem(locationOf(ROCKSDB, loader), locationOf(FROCKSDB_ONLY, loader)).ifPresent(p -> {
            throw new IllegalStateException(p);
        });
    }

    /**
     * What is wrong, given where the two classes come from. No RocksDB on this classpath is no problem here: a
     * cluster's task managers bring their own.
     */
    static Optional<String> problem(Located rocksDb, Located frocksdbOnly) {
        if (!rocksDb.present()) {
            return Optional.empty();
        }
        if (!frocksdbOnly.present()) {
            return Optional.of(ROCKSDB + " comes from " + rocksDb.where() + ", which is not Flink's frocksdb ("
                    + FROCKSDB_ONLY + " is missing): Flink's RocksDB state backend needs com.ververica:frocksdbjni and "
                    + "no org.rocksdb:rocksdbjni on its classpath");
        }
        if (!rocksDb.where().equals(frocksdbOnly.where())) {
            return Optional.of(ROCKSDB + " comes from " + rocksDb.where() + " but " + FROCKSDB_ONLY + " from "
                    + frocksdbOnly.where() + ": another RocksDB (Kafka Streams' org.rocksdb:rocksdbjni?) is ahead of "
                    + "Flink's frocksdbjni on the classpath, and its checkpoints fail; remove it from this JVM");
        }
        return Optional.empty();
    }

    /** Where a class comes from: {@code present} false if it is not on the classpath. */
    record Located(boolean present, String where) {
        static Located absent() {
            return new Located(false, "");
        }
    }

    static Located locationOf(String className, ClassLoader loader) {
        Class<?> c;
        try {
            c = Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return Located.absent();
        }
        CodeSource source = c.getProtectionDomain().getCodeSource();
        URL url = source == null ? null : source.getLocation();
        return new Located(true, url == null ? "the boot class path" : url.toString());
    }

    private RocksDbLibrary() {
    }
}
