package io.streamhouse.replay;

import io.streamhouse.domain.topic.LakeNames;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A landed topic's rows at one Iceberg snapshot, turned back into the Avro binary of the topic's value schema: the
 * inverse of {@code LakeSchemas}' mapping (struct → record, a struct of branches → the one non-null branch, string →
 * enum symbol, timestamps → epoch millis or micros as the Avro field declares, decimal → its bytes or fixed). With the
 * registry's id of the same schema in front, a row is byte for byte the record the sink read — which {@code backfill}
 * checks on every row still in the log rather than assumes.
 *
 * <p>Reads the whole snapshot of one topic into memory, ordered by partition and offset: meant for the bounded part
 * of a log that retention dropped, not for unbounded tables.
 */
final class LakeRows {

    /** One row: where it was on the log, its record timestamp and its value's Avro binary (no wire header). */
    record Row(int partition, long offset, Long timestampMs, byte[] avro) {
    }

    /**
     * The rows of one table at one snapshot, by partition in offset order.
     *
     * @param snapshotId null if the table had no snapshot then (no rows; {@code missing} says why)
     */
    record Snapshotted(String table, Long snapshotId, Map<Integer, List<Row>> byPartition, String missing) {
    }

    private final Catalog catalog;

    LakeRows(Map<String, String> catalogProperties) {
        this.catalog = CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, catalogProperties, new org.apache.hadoop.conf.Configuration());
    }

    /**
     * @param asOf read the table as it was then (its newest snapshot committed at or before), or its current snapshot if null
     * @throws ReplayCli.BadInput when the table does not exist
     */
    Snapshotted read(String topic, Schema valueSchema, java.time.Instant asOf) {
        TableIdentifier id = TableIdentifier.of(LakeNames.NAMESPACE, LakeNames.tableName(topic));
        Table table;
        try {
            table = catalog.loadTable(id);
        } catch (NoSuchTableException e) {
            throw new ReplayCli.BadInput("topic " + topic + " has no lake table " + id + ": it never landed (is the lake running?)");
        }
        Snapshot snapshot = table.currentSnapshot();
        if (asOf != null) {
            // The table's history: the snapshots that were current, in commit order (rolled-back ones are not in it).
            Long chosen = null;
            for (var entry : table.history()) {
                if (entry.timestampMillis() <= asOf.toEpochMilli()) {
                    chosen = entry.snapshotId();
                }
            }
            snapshot = chosen == null ? null : table.snapshot(chosen);
        }
        if (snapshot == null) {
            // Not an error by itself: a topic whose log still starts at offset 0 needs nothing from the lake.
            return new Snapshotted(id.toString(), null, Map.of(), asOf == null
                    ? "the lake table " + id + " has no snapshot yet: nothing of " + topic + " landed"
                    : "the lake table " + id + " has no snapshot as of " + asOf + ": nothing of " + topic + " had landed then");
        }
        Map<Integer, List<Row>> byPartition = new TreeMap<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId()).build()) {
            for (Record r : rows) {
                int partition = (Integer) r.getField(LakeNames.PARTITION_COLUMN);
                long offset = (Long) r.getField(LakeNames.OFFSET_COLUMN);
                OffsetDateTime ts = (OffsetDateTime) r.getField(LakeNames.KAFKA_TIMESTAMP_COLUMN);
                byPartition.computeIfAbsent(partition, p -> new ArrayList<>())
                        .add(new Row(partition, offset, ts == null ? null : ts.toInstant().toEpochMilli(), binary(valueSchema, r)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + id + " at snapshot " + snapshot.snapshotId(), e);
        }
        byPartition.values().forEach(l -> l.sort(Comparator.comparingLong(Row::offset)));
        return new Snapshotted(id.toString(), snapshot.snapshotId(), byPartition, null);
    }

    static byte[] binary(Schema schema, Record row) {
        Object value = record(schema, row);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        try {
            new GenericDatumWriter<>(schema, GenericData.get()).write(value, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static GenericData.Record record(Schema schema, Record struct) {
        GenericData.Record out = new GenericData.Record(schema);
        for (Schema.Field f : schema.getFields()) {
            out.put(f.pos(), value(f.schema(), struct.getField(f.name()), schema.getFullName() + "." + f.name()));
        }
        return out;
    }

    private static Object value(Schema schema, Object v, String path) {
        switch (schema.getType()) {
            case UNION: {
                List<Schema> branches = schema.getTypes().stream().filter(b -> b.getType() != Schema.Type.NULL).toList();
                if (v == null) {
                    if (branches.size() == schema.getTypes().size()) {
                        throw new IllegalStateException(path + " is null in the lake but not nullable in Avro");
                    }
                    return null;
                }
                if (branches.size() == 1) {
                    return value(branches.get(0), v, path);
                }
                // A union of several branches landed as a struct with one optional field per branch: the set one.
                Record struct = (Record) v;
                for (Schema branch : branches) {
                    Object b = struct.getField(LakeNames.branchName(branch));
                    if (b != null) {
                        return value(branch, b, path);
                    }
                }
                if (branches.size() < schema.getTypes().size()) {
                    return null;
                }
                throw new IllegalStateException(path + ": no branch of the union is set in the lake row");
            }
            case NULL:
                return null;
            case RECORD:
                return record(schema, (Record) v);
            case ENUM:
                return new GenericData.EnumSymbol(schema, v.toString());
            case STRING:
                return v.toString();
            case BOOLEAN:
            case FLOAT:
            case DOUBLE:
                return v;
            case INT: {
                LogicalType logical = schema.getLogicalType();
                if (logical instanceof LogicalTypes.Date) {
                    return (int) ((LocalDate) v).toEpochDay();
                }
                if (logical instanceof LogicalTypes.TimeMillis) {
                    return (int) (((LocalTime) v).toNanoOfDay() / 1_000_000);
                }
                return v;
            }
            case LONG: {
                LogicalType logical = schema.getLogicalType();
                if (logical instanceof LogicalTypes.TimestampMillis) {
                    return ((OffsetDateTime) v).toInstant().toEpochMilli();
                }
                if (logical instanceof LogicalTypes.TimestampMicros) {
                    return ChronoUnit.MICROS.between(java.time.Instant.EPOCH, ((OffsetDateTime) v).toInstant());
                }
                if (logical instanceof LogicalTypes.LocalTimestampMillis) {
                    return ((LocalDateTime) v).toInstant(ZoneOffset.UTC).toEpochMilli();
                }
                if (logical instanceof LogicalTypes.LocalTimestampMicros) {
                    return ChronoUnit.MICROS.between(java.time.Instant.EPOCH, ((LocalDateTime) v).toInstant(ZoneOffset.UTC));
                }
                if (logical instanceof LogicalTypes.TimeMicros) {
                    return ((LocalTime) v).toNanoOfDay() / 1_000;
                }
                return v;
            }
            case BYTES: {
                if (schema.getLogicalType() instanceof LogicalTypes.Decimal d) {
                    return new Conversions.DecimalConversion().toBytes(((BigDecimal) v).setScale(d.getScale()), schema, d);
                }
                return ((ByteBuffer) v).duplicate();
            }
            case FIXED: {
                if (schema.getLogicalType() instanceof LogicalTypes.Decimal d) {
                    return new Conversions.DecimalConversion().toFixed(((BigDecimal) v).setScale(d.getScale()), schema, d);
                }
                byte[] bytes = v instanceof ByteBuffer b ? toArray(b) : (byte[]) v;
                return new GenericData.Fixed(schema, bytes);
            }
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Object e : (List<?>) v) {
                    out.add(value(schema.getElementType(), e, path + "[]"));
                }
                return new GenericData.Array<>(schema, out);
            }
            case MAP: {
                Map<String, Object> out = new LinkedHashMap<>();
                ((Map<?, ?>) v).forEach((k, e) -> out.put(k.toString(), value(schema.getValueType(), e, path + "{}")));
                return out;
            }
            default:
                throw new IllegalStateException(path + ": Avro type " + schema.getType() + " has no lake column");
        }
    }

    private static byte[] toArray(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
