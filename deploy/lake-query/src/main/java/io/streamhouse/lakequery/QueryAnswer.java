package io.streamhouse.lakequery;

import com.fasterxml.jackson.databind.node.ArrayNode;

import java.util.List;

/** What a snapshot query came to; each kind has one HTTP status ({@link #status()}). */
sealed interface QueryAnswer {

    int status();

    /** The answer: columns, up to the row cap of rows, and what it was read at. */
    record Rows(List<Column> columns, ArrayNode rows, boolean truncated, ReadAt readAt, long elapsedMillis) implements QueryAnswer {
        @Override
        public int status() {
            return 200;
        }
    }

    /** Not a read-only query, or not valid SQL for this catalog: the reason names why. */
    record Rejected(String reason) implements QueryAnswer {
        @Override
        public int status() {
            return 400;
        }
    }

    /** The query did not finish in time; its job was cancelled. */
    record TimedOut(long timeoutMillis, String stage) implements QueryAnswer {
        @Override
        public int status() {
            return 504;
        }
    }

    /** Another query held the engine for longer than this one's whole timeout. */
    record Busy(long waitedMillis) implements QueryAnswer {
        @Override
        public int status() {
            return 503;
        }
    }

    /** A valid query that failed while it ran (e.g. a record that cannot be decoded). */
    record Failed(String reason) implements QueryAnswer {
        @Override
        public int status() {
            return 500;
        }
    }

    record Column(String name, String type) {
    }

    /** The Iceberg snapshots and Kafka end offsets an answer was read at. */
    record ReadAt(List<IcebergRead> iceberg, List<KafkaRead> kafka) {
    }

    /** {@code snapshotId} null: the table had no snapshot (empty). {@code pinnedBy}: the read option that chose it, or "current". */
    record IcebergRead(String table, Long snapshotId, String pinnedBy) {
    }

    record KafkaRead(String table, String topic, int partition, long endOffset) {
    }
}
