package io.streamhouse.lakequery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.util.Base64;
import java.util.Map;

/**
 * Flink's external row values as JSON. Exact numbers stay exact: a {@code DECIMAL} is written as a string (a JSON
 * number would be read as a double by most clients, and money must not be), {@code BIGINT} as a JSON integer.
 * Temporal values are ISO-8601 strings ({@code TIMESTAMP_LTZ} with a {@code Z}); bytes are base64; a {@code ROW} is an
 * object keyed by its field names; a {@code MAP} an object keyed by the key's text.
 */
final class JsonValues {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private JsonValues() {
    }

    static JsonNode of(Object value, LogicalType type) {
        if (value == null) {
            return F.nullNode();
        }
        if (type instanceof RowType row && value instanceof Row r) {
            ObjectNode out = F.objectNode();
            for (int i = 0; i < row.getFieldCount(); i++) {
                out.set(row.getFieldNames().get(i), of(r.getField(i), row.getTypeAt(i)));
            }
            return out;
        }
        if (type instanceof ArrayType array && value.getClass().isArray()) {
            ArrayNode out = F.arrayNode();
            for (int i = 0; i < Array.getLength(value); i++) {
                out.add(of(Array.get(value, i), array.getElementType()));
            }
            return out;
        }
        if (type instanceof MapType map && value instanceof Map<?, ?> m) {
            ObjectNode out = F.objectNode();
            m.forEach((k, v) -> out.set(String.valueOf(k), of(v, map.getValueType())));
            return out;
        }
        if (type instanceof MultisetType && value instanceof Map<?, ?> m) {
            ObjectNode out = F.objectNode();
            m.forEach((k, v) -> out.set(String.valueOf(k), of(v, new org.apache.flink.table.types.logical.IntType())));
            return out;
        }
        if (value instanceof BigDecimal d) {
            return F.textNode(d.toPlainString());
        }
        if (value instanceof byte[] bytes) {
            return F.textNode(Base64.getEncoder().encodeToString(bytes));
        }
        if (value instanceof Boolean b) {
            return F.booleanNode(b);
        }
        if (value instanceof Long l) {
            return F.numberNode(l);
        }
        if (value instanceof Integer i) {
            return F.numberNode(i);
        }
        if (value instanceof Short s) {
            return F.numberNode(s);
        }
        if (value instanceof Byte b) {
            return F.numberNode(b);
        }
        if (value instanceof Double d) {
            return Double.isFinite(d) ? F.numberNode(d) : F.textNode(d.toString());
        }
        if (value instanceof Float f) {
            return Float.isFinite(f) ? F.numberNode(f) : F.textNode(f.toString());
        }
        return F.textNode(value.toString()); // String, Instant, LocalDateTime, LocalDate, LocalTime, Duration, Period
    }
}
