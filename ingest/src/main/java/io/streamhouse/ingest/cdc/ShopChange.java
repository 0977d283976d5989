package io.streamhouse.ingest.cdc;

import org.apache.avro.generic.GenericRecord;

import java.time.Instant;
import java.util.Objects;

/**
 * One row change of a shop table, read from a Debezium change envelope.
 *
 * @param table    table name without schema, e.g. {@code orders}
 * @param op       Debezium's op: c (insert), u (update), d (delete), r (snapshot read)
 * @param before   the old row (null for inserts; with REPLICA IDENTITY FULL the whole row, else only the key)
 * @param after    the new row (null for deletes)
 * @param lsn      WAL position of the change: with table and key, what identifies it for ever
 * @param txId     PostgreSQL transaction id
 * @param committedAt when the transaction committed in the database (event time of the domain event)
 * @param capturedAt  when Debezium read it
 */
record ShopChange(String table, String op, GenericRecord before, GenericRecord after, long lsn, long txId,
                  Instant committedAt, Instant capturedAt) {

    ShopChange {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(committedAt, "committedAt");
        Objects.requireNonNull(capturedAt, "capturedAt");
    }

    boolean isInsert() {
        return "c".equals(op) || "r".equals(op);
    }

    boolean isUpdate() {
        return "u".equals(op);
    }

    boolean isDelete() {
        return "d".equals(op);
    }

    /** The row as it is now (after), or as it was for a delete (before). */
    GenericRecord row() {
        return after != null ? after : before;
    }
}
