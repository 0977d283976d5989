package io.streamhouse.lake;

import io.streamhouse.domain.topic.LakeNames;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Iceberg schema of a landed topic, derived from the value's Avro schema, so tables are created ahead with the
 * types the data has rather than the ones the sink would guess (it guesses {@code decimal(38,s)}).
 *
 * <p>Mapping: record → struct; {@code [null, T]} → optional T; a union of several non-null branches → a struct with
 * one optional field per branch, named after the branch (a named type's simple name, else the type's name), exactly
 * as {@code ConnectAvro} presents such a union to Kafka Connect (a test holds the two together); enum → string;
 * decimal → {@code decimal(p,s)} as declared; {@code timestamp-millis/-micros} → timestamp with zone;
 * {@code local-timestamp-*} → timestamp without zone; date, time; bytes → binary; fixed → fixed; array → list;
 * map → map with string keys. Then the metadata columns {@link LakeNames#METADATA_COLUMNS}. Recursive types are
 * refused: a table has a finite schema. Field ids are placeholders: the catalog assigns fresh ones on create.
 */
public final class LakeSchemas {

    private LakeSchemas() {
    }

    /** The table schema for values of {@code avro}: its fields, then the metadata columns. */
    public static Schema tableSchema(org.apache.avro.Schema avro) {
        if (avro.getType() != org.apache.avro.Schema.Type.RECORD) {
            throw new IllegalArgumentException("a landed value must be an Avro record, was " + avro.getType());
        }
        AtomicInteger ids = new AtomicInteger();
        List<Types.NestedField> columns = new ArrayList<>(new Mapper(ids).fields(avro));
        columns.add(Types.NestedField.required(ids.incrementAndGet(), LakeNames.TOPIC_COLUMN, Types.StringType.get(),
                "Kafka topic the row was read from."));
        columns.add(Types.NestedField.required(ids.incrementAndGet(), LakeNames.PARTITION_COLUMN, Types.IntegerType.get(),
                "Kafka partition."));
        columns.add(Types.NestedField.required(ids.incrementAndGet(), LakeNames.OFFSET_COLUMN, Types.LongType.get(),
                "Kafka offset: with _topic and _partition, the row's identity."));
        columns.add(Types.NestedField.optional(ids.incrementAndGet(), LakeNames.KAFKA_TIMESTAMP_COLUMN,
                Types.TimestampType.withZone(), "Kafka record timestamp."));
        return new Schema(columns);
    }

    /** Day partitions of the event-time column (dot-separated path to a timestamp field). */
    public static PartitionSpec daySpec(Schema schema, String eventTimeColumn) {
        Types.NestedField field = schema.findField(eventTimeColumn);
        if (field == null || field.type().typeId() != Type.TypeID.TIMESTAMP) {
            throw new IllegalArgumentException("event-time column " + eventTimeColumn + " is not a timestamp of " + schema);
        }
        return PartitionSpec.builderFor(schema).day(eventTimeColumn, "event_day").build();
    }

    private static final class Mapper {
        private final AtomicInteger ids;
        private final Deque<String> path = new ArrayDeque<>();

        Mapper(AtomicInteger ids) {
            this.ids = ids;
        }

        List<Types.NestedField> fields(org.apache.avro.Schema record) {
            if (path.contains(record.getFullName())) {
                throw new IllegalArgumentException("recursive Avro type " + record.getFullName() + " cannot be a table");
            }
            path.push(record.getFullName());
            List<Types.NestedField> out = new ArrayList<>();
            for (org.apache.avro.Schema.Field f : record.getFields()) {
                out.add(field(f.name(), f.schema(), f.doc()));
            }
            path.pop();
            return out;
        }

        private Types.NestedField field(String name, org.apache.avro.Schema schema, String doc) {
            int id = ids.incrementAndGet();
            boolean optional = isNullable(schema);
            Type type = type(schema);
            return optional ? Types.NestedField.optional(id, name, type, doc) : Types.NestedField.required(id, name, type, doc);
        }

        private Type type(org.apache.avro.Schema schema) {
            switch (schema.getType()) {
                case UNION: {
                    List<org.apache.avro.Schema> branches = nonNull(schema);
                    if (branches.isEmpty()) {
                        throw new IllegalArgumentException("a union with only null has no column type: " + schema);
                    }
                    if (branches.size() == 1) {
                        return type(branches.get(0));
                    }
                    List<Types.NestedField> fields = new ArrayList<>();
                    Set<String> names = new HashSet<>();
                    for (org.apache.avro.Schema branch : branches) {
                        String name = LakeNames.branchName(branch);
                        if (!names.add(name)) {
                            throw new IllegalArgumentException("two branches named " + name + " in union " + schema);
                        }
                        fields.add(Types.NestedField.optional(ids.incrementAndGet(), name, type(branch), branch.getDoc()));
                    }
                    return Types.StructType.of(fields);
                }
                case RECORD:
                    return Types.StructType.of(fields(schema));
                case ENUM:
                case STRING:
                    return Types.StringType.get();
                case BOOLEAN:
                    return Types.BooleanType.get();
                case INT: {
                    LogicalType logical = schema.getLogicalType();
                    if (logical instanceof LogicalTypes.Date) {
                        return Types.DateType.get();
                    }
                    if (logical instanceof LogicalTypes.TimeMillis) {
                        return Types.TimeType.get();
                    }
                    return Types.IntegerType.get();
                }
                case LONG: {
                    LogicalType logical = schema.getLogicalType();
                    if (logical instanceof LogicalTypes.TimestampMillis || logical instanceof LogicalTypes.TimestampMicros) {
                        return Types.TimestampType.withZone();
                    }
                    if (logical instanceof LogicalTypes.LocalTimestampMillis || logical instanceof LogicalTypes.LocalTimestampMicros) {
                        return Types.TimestampType.withoutZone();
                    }
                    if (logical instanceof LogicalTypes.TimeMicros) {
                        return Types.TimeType.get();
                    }
                    return Types.LongType.get();
                }
                case FLOAT:
                    return Types.FloatType.get();
                case DOUBLE:
                    return Types.DoubleType.get();
                case BYTES:
                case FIXED: {
                    if (schema.getLogicalType() instanceof LogicalTypes.Decimal d) {
                        return Types.DecimalType.of(d.getPrecision(), d.getScale());
                    }
                    return schema.getType() == org.apache.avro.Schema.Type.FIXED
                            ? Types.FixedType.ofLength(schema.getFixedSize()) : Types.BinaryType.get();
                }
                case ARRAY: {
                    org.apache.avro.Schema element = schema.getElementType();
                    int elementId = ids.incrementAndGet();
                    return isNullable(element) ? Types.ListType.ofOptional(elementId, type(element))
                            : Types.ListType.ofRequired(elementId, type(element));
                }
                case MAP: {
                    org.apache.avro.Schema value = schema.getValueType();
                    int keyId = ids.incrementAndGet();
                    int valueId = ids.incrementAndGet();
                    return isNullable(value) ? Types.MapType.ofOptional(keyId, valueId, Types.StringType.get(), type(value))
                            : Types.MapType.ofRequired(keyId, valueId, Types.StringType.get(), type(value));
                }
                default:
                    throw new IllegalArgumentException("Avro type " + schema.getType() + " has no column type");
            }
        }

        private static boolean isNullable(org.apache.avro.Schema schema) {
            return schema.getType() == org.apache.avro.Schema.Type.UNION
                    && schema.getTypes().stream().anyMatch(b -> b.getType() == org.apache.avro.Schema.Type.NULL);
        }

        private static List<org.apache.avro.Schema> nonNull(org.apache.avro.Schema union) {
            return union.getTypes().stream().filter(b -> b.getType() != org.apache.avro.Schema.Type.NULL).toList();
        }
    }
}
