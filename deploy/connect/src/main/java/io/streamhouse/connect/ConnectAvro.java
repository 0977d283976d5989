package io.streamhouse.connect;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The mapping between Kafka Connect's data model and Avro, written here because Confluent's (AvroData) is not on
 * Maven Central. Schemas and values both ways.
 *
 * <p>Connect → Avro:
 * <ul>
 *   <li>STRUCT → record (named after the Connect schema name, sanitised; unnamed structs get a name from their
 *       path); the same struct met twice in one schema (Debezium's {@code before} and {@code after}) is defined once
 *       and then referenced by name, as Avro requires.</li>
 *   <li>optional → union {@code ["null", T]} with default null; a non-null Connect default becomes the Avro
 *       default (and the union then starts with T).</li>
 *   <li>INT8/INT16 → int, INT32 → int, INT64 → long, FLOAT32 → float, FLOAT64 → double, BOOLEAN, STRING, BYTES,
 *       ARRAY → array, MAP with STRING keys → map (other key types are refused with a {@link DataException}).</li>
 *   <li>Connect {@code Decimal} (Debezium's {@code decimal.handling.mode=precise}) → bytes with logical type decimal,
 *       scale from the schema, precision from {@code connect.decimal.precision} (Debezium sets it; 38 otherwise):
 *       exact, never a double. Connect {@code Date}/{@code Time}/{@code Timestamp} and Debezium's
 *       {@code io.debezium.time.Date}/{@code Timestamp}/{@code MicroTimestamp}/{@code MicroTime} → Avro date,
 *       time-millis, timestamp-millis, timestamp-micros, time-micros. Other semantic types (Debezium's
 *       {@code ZonedTimestamp}, an ISO-8601 string) keep their base type.</li>
 *   <li>Every Connect schema name, version, doc and parameters are kept as Avro properties ({@code connect.name},
 *       {@code connect.version}, {@code connect.parameters}, {@code connect.type} for INT8/INT16) so that
 *       {@link #toConnectSchema} restores the same Connect schema.</li>
 * </ul>
 * Avro → Connect is the inverse, and maps a union of several non-null branches (e.g. {@code CustomerEvent.change})
 * to a struct named {@value #UNION_NAME} with one optional field per branch ({@link #branchName}), exactly one set;
 * such a struct is refused on the way back to Avro.
 * Instances are not thread-safe (they cache per schema); the converter keeps one per direction behind a lock.
 */
public final class ConnectAvro {

    static final String CONNECT_NAME = "connect.name";
    static final String CONNECT_VERSION = "connect.version";
    static final String CONNECT_PARAMETERS = "connect.parameters";
    static final String CONNECT_TYPE = "connect.type";
    static final String DECIMAL_PRECISION = "connect.decimal.precision";
    static final int DEFAULT_DECIMAL_PRECISION = 38;
    /** Connect schema name of a struct that stands for an Avro union of several non-null branches. */
    public static final String UNION_NAME = "io.streamhouse.connect.Union";

    static final String DBZ_DATE = "io.debezium.time.Date";
    static final String DBZ_TIMESTAMP = "io.debezium.time.Timestamp";
    static final String DBZ_MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
    static final String DBZ_MICRO_TIME = "io.debezium.time.MicroTime";

    private final Map<org.apache.kafka.connect.data.Schema, Schema> toAvroCache = new HashMap<>();
    private final Map<Schema, org.apache.kafka.connect.data.Schema> toConnectCache = new HashMap<>();

    // ---------------------------------------------------------------- schemas, Connect -> Avro

    public Schema toAvroSchema(org.apache.kafka.connect.data.Schema schema) {
        if (schema == null) {
            throw new DataException("a record without a Connect schema cannot be written as Avro (schemaless data)");
        }
        return toAvroCache.computeIfAbsent(schema, s -> new SchemaBuild().avro(s, "ConnectDefault"));
    }

    /** State of one schema conversion: the records defined so far, for references and uniqueness. */
    private static final class SchemaBuild {
        private final Map<String, Schema> defined = new HashMap<>();
        private final Map<String, org.apache.kafka.connect.data.Schema> definedFrom = new HashMap<>();

        Schema avro(org.apache.kafka.connect.data.Schema s, String path) {
            Schema base = nonOptional(s, path);
            if (!s.isOptional()) {
                return base;
            }
            if (s.defaultValue() != null) {
                return Schema.createUnion(base, Schema.create(Schema.Type.NULL));
            }
            return Schema.createUnion(Schema.create(Schema.Type.NULL), base);
        }

        private Schema nonOptional(org.apache.kafka.connect.data.Schema s, String path) {
            String name = s.name();
            Schema avro;
            if (Decimal.LOGICAL_NAME.equals(name)) {
                int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
                String p = s.parameters().get(DECIMAL_PRECISION);
                int precision = p == null ? DEFAULT_DECIMAL_PRECISION : Integer.parseInt(p);
                avro = LogicalTypes.decimal(Math.max(precision, scale), scale).addToSchema(Schema.create(Schema.Type.BYTES));
            } else if (Date.LOGICAL_NAME.equals(name) || DBZ_DATE.equals(name)) {
                avro = LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
            } else if (Time.LOGICAL_NAME.equals(name)) {
                avro = LogicalTypes.timeMillis().addToSchema(Schema.create(Schema.Type.INT));
            } else if (Timestamp.LOGICAL_NAME.equals(name) || DBZ_TIMESTAMP.equals(name)) {
                avro = LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
            } else if (DBZ_MICRO_TIMESTAMP.equals(name)) {
                avro = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
            } else if (DBZ_MICRO_TIME.equals(name)) {
                avro = LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
            } else {
                avro = plain(s, path);
                if (avro.getType() == Schema.Type.RECORD) {
                    return avro; // properties set when the record was defined; a reference must not get new ones
                }
            }
            keepConnectProperties(avro, s);
            return avro;
        }

        private Schema plain(org.apache.kafka.connect.data.Schema s, String path) {
            switch (s.type()) {
                case INT8:
                case INT16: {
                    Schema avro = Schema.create(Schema.Type.INT);
                    avro.addProp(CONNECT_TYPE, s.type().getName());
                    return avro;
                }
                case INT32: return Schema.create(Schema.Type.INT);
                case INT64: return Schema.create(Schema.Type.LONG);
                case FLOAT32: return Schema.create(Schema.Type.FLOAT);
                case FLOAT64: return Schema.create(Schema.Type.DOUBLE);
                case BOOLEAN: return Schema.create(Schema.Type.BOOLEAN);
                case STRING: return Schema.create(Schema.Type.STRING);
                case BYTES: return Schema.create(Schema.Type.BYTES);
                case ARRAY: return Schema.createArray(avro(s.valueSchema(), path + "_item"));
                case MAP:
                    if (s.keySchema().type() != org.apache.kafka.connect.data.Schema.Type.STRING) {
                        throw new DataException("maps with " + s.keySchema().type() + " keys are not supported (at " + path + ")");
                    }
                    return Schema.createMap(avro(s.valueSchema(), path + "_value"));
                case STRUCT:
                    if (UNION_NAME.equals(s.name())) {
                        // Only read (Avro -> Connect): nothing here writes unions, and a record would change the shape.
                        throw new DataException("a union struct cannot be written back as Avro (at " + path + ")");
                    }
                    return record(s, path);
                default: throw new DataException("unsupported Connect type " + s.type() + " at " + path);
            }
        }

        private Schema record(org.apache.kafka.connect.data.Schema s, String path) {
            String fullName = avroName(s.name() != null ? s.name() : path);
            Schema existing = defined.get(fullName);
            if (existing != null) {
                if (!structurallyEqual(definedFrom.get(fullName), s)) {
                    throw new DataException("two different Connect structs share the name " + fullName);
                }
                return existing;
            }
            int dot = fullName.lastIndexOf('.');
            String simple = dot < 0 ? fullName : fullName.substring(dot + 1);
            String namespace = dot < 0 ? null : fullName.substring(0, dot);
            Schema record = Schema.createRecord(simple, s.doc(), namespace, false);
            defined.put(fullName, record);
            definedFrom.put(fullName, s);
            List<Schema.Field> fields = new ArrayList<>();
            for (Field f : s.fields()) {
                Schema fieldSchema = avro(f.schema(), fullName + "_" + f.name());
                Object defaultValue = defaultOf(f.schema());
                fields.add(new Schema.Field(avroFieldName(f.name()), fieldSchema, f.schema().doc(), defaultValue));
            }
            record.setFields(fields);
            keepConnectProperties(record, s);
            return record;
        }

        private static boolean structurallyEqual(org.apache.kafka.connect.data.Schema a, org.apache.kafka.connect.data.Schema b) {
            return a.equals(b) || (a.fields().equals(b.fields()) && java.util.Objects.equals(a.name(), b.name()));
        }

        private static Object defaultOf(org.apache.kafka.connect.data.Schema s) {
            Object d = s.defaultValue();
            if (d == null) {
                return s.isOptional() ? Schema.Field.NULL_DEFAULT_VALUE : null;
            }
            switch (s.type()) {
                case INT8: return ((Byte) d).intValue();
                case INT16: return ((Short) d).intValue();
                case INT32:
                case INT64:
                case FLOAT32:
                case FLOAT64:
                case BOOLEAN:
                case STRING:
                    return d instanceof java.util.Date ? null : d; // logical defaults are not carried over
                default:
                    return null; // Avro defaults of complex or logical types are not carried over
            }
        }

        private static void keepConnectProperties(Schema avro, org.apache.kafka.connect.data.Schema s) {
            if (s.name() != null) {
                avro.addProp(CONNECT_NAME, s.name());
            }
            if (s.version() != null) {
                avro.addProp(CONNECT_VERSION, s.version());
            }
            if (s.parameters() != null && !s.parameters().isEmpty()) {
                avro.addProp(CONNECT_PARAMETERS, new LinkedHashMap<>(s.parameters()));
            }
        }
    }

    /** Avro names allow [A-Za-z_][A-Za-z0-9_]* per dot-separated part. */
    static String avroName(String connectName) {
        String[] parts = connectName.split("\\.", -1);
        StringBuilder out = new StringBuilder();
        for (String part : parts) {
            if (out.length() > 0) {
                out.append('.');
            }
            out.append(avroFieldName(part.isEmpty() ? "_" : part));
        }
        return out.toString();
    }

    static String avroFieldName(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
            out.append(ok ? c : '_');
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- values, Connect -> Avro

    /** The Avro datum for a Connect value of {@code schema}, to be written with {@code avro}. */
    public Object toAvroValue(org.apache.kafka.connect.data.Schema schema, Schema avro, Object value) {
        if (value == null) {
            if (!schema.isOptional() && schema.defaultValue() == null) {
                throw new DataException("null value for required " + describe(schema));
            }
            value = schema.defaultValue();
            if (value == null) {
                return null;
            }
        }
        Schema target = nonNullBranch(avro);
        String name = schema.name();
        if (Decimal.LOGICAL_NAME.equals(name)) {
            BigDecimal decimal = (BigDecimal) value;
            int scale = Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD));
            if (decimal.scale() != scale) {
                decimal = decimal.setScale(scale); // throws if digits would be lost: exact or nothing
            }
            return ByteBuffer.wrap(decimal.unscaledValue().toByteArray());
        }
        if (Date.LOGICAL_NAME.equals(name)) {
            return Date.fromLogical(schema, (java.util.Date) value);
        }
        if (Time.LOGICAL_NAME.equals(name)) {
            return Time.fromLogical(schema, (java.util.Date) value);
        }
        if (Timestamp.LOGICAL_NAME.equals(name)) {
            return Timestamp.fromLogical(schema, (java.util.Date) value);
        }
        switch (schema.type()) {
            case INT8: return ((Byte) value).intValue();
            case INT16: return ((Short) value).intValue();
            case BYTES: return value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
            case ARRAY: {
                List<?> list = (List<?>) value;
                List<Object> out = new GenericData.Array<>(list.size(), target);
                for (Object item : list) {
                    out.add(toAvroValue(schema.valueSchema(), target.getElementType(), item));
                }
                return out;
            }
            case MAP: {
                Map<?, ?> map = (Map<?, ?>) value;
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    out.put((String) e.getKey(), toAvroValue(schema.valueSchema(), target.getValueType(), e.getValue()));
                }
                return out;
            }
            case STRUCT: {
                Struct struct = (Struct) value;
                GenericData.Record record = new GenericData.Record(target);
                for (Field f : schema.fields()) {
                    Schema.Field af = target.getField(avroFieldName(f.name()));
                    record.put(af.pos(), toAvroValue(f.schema(), af.schema(), struct.get(f)));
                }
                return record;
            }
            default:
                return value;
        }
    }

    private static Schema nonNullBranch(Schema avro) {
        if (avro.getType() != Schema.Type.UNION) {
            return avro;
        }
        for (Schema branch : avro.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                return branch;
            }
        }
        throw new DataException("union without a non-null branch: " + avro);
    }

    private static String describe(org.apache.kafka.connect.data.Schema s) {
        return s.name() != null ? s.name() : s.type().toString();
    }

    // ---------------------------------------------------------------- schemas, Avro -> Connect

    public org.apache.kafka.connect.data.Schema toConnectSchema(Schema avro) {
        return toConnectCache.computeIfAbsent(avro, a -> connect(a, false, null, new HashMap<>()));
    }

    private org.apache.kafka.connect.data.Schema connect(Schema avro, boolean optional, Object defaultValue,
                                                         Map<String, org.apache.kafka.connect.data.Schema> records) {
        if (avro.getType() == Schema.Type.UNION) {
            List<Schema> branches = avro.getTypes();
            if (branches.size() == 2 && branches.stream().anyMatch(b -> b.getType() == Schema.Type.NULL)) {
                return connect(nonNullBranch(avro), true, defaultValue, records);
            }
            return unionStruct(avro, optional || branches.stream().anyMatch(b -> b.getType() == Schema.Type.NULL), records);
        }
        SchemaBuilder b;
        var logical = avro.getLogicalType();
        String connectName = avro.getProp(CONNECT_NAME);
        if (logical instanceof LogicalTypes.Decimal dec) {
            b = Decimal.builder(dec.getScale()).parameter(DECIMAL_PRECISION, Integer.toString(dec.getPrecision()));
        } else if (logical instanceof LogicalTypes.Date && connectName == null) {
            b = Date.builder();
        } else if (logical instanceof LogicalTypes.TimeMillis && connectName == null) {
            b = Time.builder();
        } else if (logical instanceof LogicalTypes.TimestampMillis && connectName == null) {
            b = Timestamp.builder();
        } else {
            switch (avro.getType()) {
                case INT: {
                    String t = avro.getProp(CONNECT_TYPE);
                    b = "int8".equals(t) ? SchemaBuilder.int8() : "int16".equals(t) ? SchemaBuilder.int16() : SchemaBuilder.int32();
                    break;
                }
                case LONG: b = SchemaBuilder.int64(); break;
                case FLOAT: b = SchemaBuilder.float32(); break;
                case DOUBLE: b = SchemaBuilder.float64(); break;
                case BOOLEAN: b = SchemaBuilder.bool(); break;
                case STRING:
                case ENUM: b = SchemaBuilder.string(); break;
                case BYTES:
                case FIXED: b = SchemaBuilder.bytes(); break;
                case ARRAY: b = SchemaBuilder.array(connect(avro.getElementType(), false, null, records)); break;
                case MAP: b = SchemaBuilder.map(org.apache.kafka.connect.data.Schema.STRING_SCHEMA,
                        connect(avro.getValueType(), false, null, records)); break;
                case RECORD: {
                    b = SchemaBuilder.struct().name(connectName != null ? connectName : avro.getFullName());
                    for (Schema.Field f : avro.getFields()) {
                        Object d = f.hasDefaultValue() ? f.defaultVal() : null;
                        b.field(f.name(), connect(f.schema(), false, d == Schema.Field.NULL_DEFAULT_VALUE
                                || d instanceof org.apache.avro.JsonProperties.Null ? null : d, records));
                    }
                    break;
                }
                default: throw new DataException("unsupported Avro type " + avro.getType());
            }
            if (connectName != null && avro.getType() != Schema.Type.RECORD) {
                b.name(connectName);
            }
        }
        String version = avro.getProp(CONNECT_VERSION);
        if (version != null) {
            b.version(Integer.valueOf(version));
        }
        Object params = avro.getObjectProp(CONNECT_PARAMETERS);
        if (params instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                b.parameter(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
            }
        }
        if (avro.getDoc() != null && avro.getType() == Schema.Type.RECORD) {
            b.doc(avro.getDoc());
        }
        if (optional) {
            b.optional();
        }
        if (defaultValue != null) {
            Object d = connectDefault(b, defaultValue);
            if (d != null) {
                b.defaultValue(d);
            }
        }
        return b.build();
    }

    /**
     * A union of several non-null branches as a Connect struct named {@value #UNION_NAME}: one optional field per
     * branch, named by {@link #branchName}; exactly one is set in a value. Optional when the union has a null branch.
     */
    private org.apache.kafka.connect.data.Schema unionStruct(Schema union, boolean optional,
                                                             Map<String, org.apache.kafka.connect.data.Schema> records) {
        SchemaBuilder b = SchemaBuilder.struct().name(UNION_NAME);
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Schema branch : union.getTypes()) {
            if (branch.getType() == Schema.Type.NULL) {
                continue;
            }
            String name = branchName(branch);
            if (!names.add(name)) {
                throw new DataException("two branches named " + name + " in union " + union);
            }
            b.field(name, connect(branch, true, null, records));
        }
        if (optional) {
            b.optional();
        }
        return b.build();
    }

    /**
     * The struct field of a union branch: a named type's simple name, else the type's name ({@code string},
     * {@code long}, {@code array}, ...). The lake's table schemas ({@code io.streamhouse.lake.LakeSchemas}) use the
     * same rule, so a union lands as the struct the table was created with.
     */
    static String branchName(Schema branch) {
        return switch (branch.getType()) {
            case RECORD, ENUM, FIXED -> branch.getName();
            default -> branch.getType().getName();
        };
    }

    private static Object connectDefault(SchemaBuilder b, Object avroDefault) {
        switch (b.type()) {
            case INT8: return ((Number) avroDefault).byteValue();
            case INT16: return ((Number) avroDefault).shortValue();
            case INT32: return b.name() == null ? ((Number) avroDefault).intValue() : null;
            case INT64: return b.name() == null ? ((Number) avroDefault).longValue() : null;
            case FLOAT32: return ((Number) avroDefault).floatValue();
            case FLOAT64: return ((Number) avroDefault).doubleValue();
            case BOOLEAN: return avroDefault;
            case STRING: return avroDefault.toString();
            default: return null;
        }
    }

    // ---------------------------------------------------------------- values, Avro -> Connect

    /** The union struct with the one field of the datum's branch set. */
    private Struct unionValue(org.apache.kafka.connect.data.Schema schema, Object datum) {
        String branch;
        if (datum instanceof org.apache.avro.generic.GenericContainer container) {
            branch = branchName(container.getSchema());
        } else if (datum instanceof CharSequence) {
            branch = "string";
        } else if (datum instanceof Integer) {
            branch = "int";
        } else if (datum instanceof Long) {
            branch = "long";
        } else if (datum instanceof Float) {
            branch = "float";
        } else if (datum instanceof Double) {
            branch = "double";
        } else if (datum instanceof Boolean) {
            branch = "boolean";
        } else if (datum instanceof ByteBuffer || datum instanceof byte[]) {
            branch = "bytes";
        } else if (datum instanceof Map) {
            branch = "map";
        } else if (datum instanceof List) {
            branch = "array";
        } else {
            throw new DataException("a union value of " + datum.getClass().getName() + " matches no branch of " + schema.fields());
        }
        Field field = schema.field(branch);
        if (field == null) {
            throw new DataException("a union value of branch " + branch + " matches no branch of " + schema.fields());
        }
        Struct struct = new Struct(schema);
        struct.put(field, toConnectValue(field.schema(), datum));
        return struct;
    }

    public Object toConnectValue(org.apache.kafka.connect.data.Schema schema, Object avro) {
        if (avro == null) {
            return null;
        }
        String name = schema.name();
        if (Decimal.LOGICAL_NAME.equals(name)) {
            ByteBuffer buffer = ((ByteBuffer) avro).duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return new BigDecimal(new BigInteger(bytes), Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD)));
        }
        if (Date.LOGICAL_NAME.equals(name)) {
            return Date.toLogical(schema, (Integer) avro);
        }
        if (Time.LOGICAL_NAME.equals(name)) {
            return Time.toLogical(schema, (Integer) avro);
        }
        if (Timestamp.LOGICAL_NAME.equals(name)) {
            return Timestamp.toLogical(schema, (Long) avro);
        }
        switch (schema.type()) {
            case INT8: return ((Integer) avro).byteValue();
            case INT16: return ((Integer) avro).shortValue();
            case STRING: return avro.toString();
            case BYTES: {
                if (avro instanceof byte[]) {
                    return avro;
                }
                if (avro instanceof GenericData.Fixed fixed) {
                    return fixed.bytes();
                }
                ByteBuffer buffer = ((ByteBuffer) avro).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                return bytes;
            }
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Object item : (List<?>) avro) {
                    out.add(toConnectValue(schema.valueSchema(), item));
                }
                return out;
            }
            case MAP: {
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) avro).entrySet()) {
                    out.put(e.getKey().toString(), toConnectValue(schema.valueSchema(), e.getValue()));
                }
                return out;
            }
            case STRUCT: {
                if (UNION_NAME.equals(name)) {
                    return unionValue(schema, avro);
                }
                GenericRecord record = (GenericRecord) avro;
                Struct struct = new Struct(schema);
                for (Field f : schema.fields()) {
                    struct.put(f, toConnectValue(f.schema(), record.get(avroFieldName(f.name()))));
                }
                return struct;
            }
            default:
                return avro;
        }
    }
}
