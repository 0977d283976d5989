package io.streamhouse.lakequery;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Avro schemas as Flink SQL types, and Avro generic data as Flink's internal rows, with the same mapping the lake's
 * Iceberg tables use: {@code timestamp-millis/micros} → {@code TIMESTAMP_LTZ}, decimals → {@code DECIMAL(p,s)},
 * enums → {@code STRING}, {@code ["null", T]} → nullable {@code T}, and a union of several non-null branches → a
 * {@code ROW} with one nullable field per branch (named after the branch), exactly one of them set.
 *
 * <p>Flink's own {@code flink-avro} mapping turns multi-branch unions into an opaque {@code RAW} type, which SQL cannot
 * look into; that is why this mapping exists. Pure functions, no state; the converter is serializable so Flink can
 * ship it to the source's tasks.
 */
final class AvroRows {

    private AvroRows() {
    }

    /** The SQL type of a record schema: a NOT NULL {@code ROW} of its fields. */
    static DataType dataType(Schema schema) {
        return switch (schema.getType()) {
            case RECORD -> {
                List<DataTypes.Field> fields = new ArrayList<>();
                for (Schema.Field f : schema.getFields()) {
                    fields.add(DataTypes.FIELD(f.name(), dataType(f.schema())));
                }
                yield DataTypes.ROW(fields).notNull();
            }
            case ENUM, STRING -> DataTypes.STRING().notNull();
            case ARRAY -> DataTypes.ARRAY(dataType(schema.getElementType())).notNull();
            case MAP -> DataTypes.MAP(DataTypes.STRING().notNull(), dataType(schema.getValueType())).notNull();
            case UNION -> unionType(schema);
            case FIXED -> schema.getLogicalType() instanceof LogicalTypes.Decimal d
                    ? DataTypes.DECIMAL(d.getPrecision(), d.getScale()).notNull()
                    : DataTypes.BINARY(schema.getFixedSize()).notNull();
            case BYTES -> schema.getLogicalType() instanceof LogicalTypes.Decimal d
                    ? DataTypes.DECIMAL(d.getPrecision(), d.getScale()).notNull()
                    : DataTypes.BYTES().notNull();
            case INT -> {
                LogicalType logical = schema.getLogicalType();
                if (logical instanceof LogicalTypes.Date) {
                    yield DataTypes.DATE().notNull();
                }
                yield logical instanceof LogicalTypes.TimeMillis ? DataTypes.TIME(3).notNull() : DataTypes.INT().notNull();
            }
            case LONG -> {
                LogicalType logical = schema.getLogicalType();
                if (logical instanceof LogicalTypes.TimestampMillis) {
                    yield DataTypes.TIMESTAMP_LTZ(3).notNull();
                }
                if (logical instanceof LogicalTypes.TimestampMicros) {
                    yield DataTypes.TIMESTAMP_LTZ(6).notNull();
                }
                yield DataTypes.BIGINT().notNull();
            }
            case FLOAT -> DataTypes.FLOAT().notNull();
            case DOUBLE -> DataTypes.DOUBLE().notNull();
            case BOOLEAN -> DataTypes.BOOLEAN().notNull();
            case NULL -> DataTypes.NULL();
        };
    }

    private static DataType unionType(Schema union) {
        List<Schema> branches = nonNullBranches(union);
        boolean nullable = branches.size() < union.getTypes().size();
        if (branches.isEmpty()) {
            return DataTypes.NULL();
        }
        if (branches.size() == 1) {
            DataType only = dataType(branches.get(0));
            return nullable ? only.nullable() : only;
        }
        List<DataTypes.Field> fields = new ArrayList<>();
        for (Schema branch : branches) {
            fields.add(DataTypes.FIELD(branchName(branch), dataType(branch).nullable()));
        }
        DataType row = DataTypes.ROW(fields);
        return nullable ? row.nullable() : row.notNull();
    }

    private static List<Schema> nonNullBranches(Schema union) {
        List<Schema> branches = new ArrayList<>();
        for (Schema s : union.getTypes()) {
            if (s.getType() != Schema.Type.NULL) {
                branches.add(s);
            }
        }
        return branches;
    }

    /** A record or enum branch is named after its simple name, a primitive after its type. */
    private static String branchName(Schema branch) {
        return switch (branch.getType()) {
            case RECORD, ENUM, FIXED -> branch.getName();
            default -> branch.getType().getName();
        };
    }

    /** Converts one decoded value of {@code schema} (Avro generic data, no logical-type conversions) to Flink's internal form. */
    static Object toInternal(Schema schema, Object value) {
        if (value == null) {
            return null;
        }
        return switch (schema.getType()) {
            case RECORD -> {
                IndexedRecord record = (IndexedRecord) value;
                List<Schema.Field> fields = schema.getFields();
                GenericRowData row = new GenericRowData(fields.size());
                for (int i = 0; i < fields.size(); i++) {
                    row.setField(i, toInternal(fields.get(i).schema(), record.get(i)));
                }
                yield row;
            }
            case ENUM -> StringData.fromString(value instanceof GenericEnumSymbol<?> e ? e.toString() : value.toString());
            case STRING -> StringData.fromString(value.toString());
            case ARRAY -> {
                List<?> list = (List<?>) value;
                Object[] items = new Object[list.size()];
                for (int i = 0; i < items.length; i++) {
                    items[i] = toInternal(schema.getElementType(), list.get(i));
                }
                yield new GenericArrayData(items);
            }
            case MAP -> {
                Map<Object, Object> converted = new HashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    converted.put(StringData.fromString(e.getKey().toString()), toInternal(schema.getValueType(), e.getValue()));
                }
                yield new GenericMapData(converted);
            }
            case UNION -> unionToInternal(schema, value);
            case FIXED -> schema.getLogicalType() instanceof LogicalTypes.Decimal d
                    ? decimal(((GenericFixed) value).bytes(), d)
                    : ((GenericFixed) value).bytes().clone();
            case BYTES -> {
                ByteBuffer buffer = ((ByteBuffer) value).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                yield schema.getLogicalType() instanceof LogicalTypes.Decimal d ? decimal(bytes, d) : bytes;
            }
            case LONG -> {
                long l = (Long) value;
                LogicalType logical = schema.getLogicalType();
                if (logical instanceof LogicalTypes.TimestampMillis) {
                    yield TimestampData.fromEpochMillis(l);
                }
                if (logical instanceof LogicalTypes.TimestampMicros) {
                    yield TimestampData.fromInstant(Instant.EPOCH.plusNanos(Math.multiplyExact(l, 1000L)));
                }
                yield l;
            }
            case INT, FLOAT, DOUBLE, BOOLEAN -> value;
            case NULL -> null;
        };
    }

    private static Object unionToInternal(Schema union, Object value) {
        List<Schema> branches = nonNullBranches(union);
        Schema branch = union.getTypes().get(GenericData.get().resolveUnion(union, value));
        if (branches.size() == 1) {
            return toInternal(branch, value);
        }
        GenericRowData row = new GenericRowData(branches.size());
        row.setField(branches.indexOf(branch), toInternal(branch, value));
        return row;
    }

    private static DecimalData decimal(byte[] unscaled, LogicalTypes.Decimal d) {
        return DecimalData.fromBigDecimal(new BigDecimal(new BigInteger(unscaled), d.getScale()), d.getPrecision(), d.getScale());
    }

    /** A record schema held as its JSON text, so that a format can be serialized and shipped to Flink's tasks. */
    record SchemaText(String json) implements Serializable {
        Schema parse() {
            return new Schema.Parser().parse(json);
        }
    }
}
