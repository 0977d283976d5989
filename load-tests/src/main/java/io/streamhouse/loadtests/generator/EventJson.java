package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Readable JSON of an Avro event, for the file target and for people: field order as in the schema, instants as
 * ISO-8601, decimals as plain strings (exact), enums by name, and a {@code "@type"} on a record that is one branch of
 * a union of several records (a customer's or an order's change), so the reader knows which one it is. Not Avro's
 * JSON encoding, which wraps every union value and writes decimals as bytes.
 */
public final class EventJson {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    public static ObjectNode of(SpecificRecord record) {
        return record(record, false);
    }

    private static ObjectNode record(SpecificRecord record, boolean typed) {
        ObjectNode node = F.objectNode();
        Schema schema = record.getSchema();
        if (typed) {
            node.put("@type", schema.getName());
        }
        for (Schema.Field field : schema.getFields()) {
            node.set(field.name(), value(record.get(field.pos()), field.schema()));
        }
        return node;
    }

    private static JsonNode value(Object v, Schema schema) {
        if (v == null) {
            return F.nullNode();
        }
        if (v instanceof SpecificRecord r) {
            return record(r, schema.getType() == Schema.Type.UNION && schema.getTypes().stream()
                    .filter(s -> s.getType() == Schema.Type.RECORD).count() > 1);
        }
        if (v instanceof CharSequence s) {
            return F.textNode(s.toString());
        }
        if (v instanceof Instant i) {
            return F.textNode(i.toString());
        }
        if (v instanceof BigDecimal d) {
            return F.textNode(d.toPlainString());
        }
        if (v instanceof Enum<?> e) {
            return F.textNode(e.name());
        }
        if (v instanceof Integer i) {
            return F.numberNode(i);
        }
        if (v instanceof Long l) {
            return F.numberNode(l);
        }
        if (v instanceof Double d) {
            return F.numberNode(d);
        }
        if (v instanceof Float f) {
            return F.numberNode(f);
        }
        if (v instanceof Boolean b) {
            return F.booleanNode(b);
        }
        if (v instanceof List<?> list) {
            Schema items = elementSchema(schema, Schema.Type.ARRAY).getElementType();
            var array = F.arrayNode();
            list.forEach(item -> array.add(value(item, items)));
            return array;
        }
        if (v instanceof Map<?, ?> map) {
            Schema values = elementSchema(schema, Schema.Type.MAP).getValueType();
            ObjectNode object = F.objectNode();
            new java.util.TreeMap<>(map).forEach((k, val) -> object.set(k.toString(), value(val, values)));
            return object;
        }
        throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
    }

    private static Schema elementSchema(Schema schema, Schema.Type type) {
        if (schema.getType() == type) {
            return schema;
        }
        return schema.getTypes().stream().filter(s -> s.getType() == type).findFirst().orElseThrow();
    }

    private EventJson() {
    }
}
