package io.streamhouse.connect;

import io.streamhouse.domain.pii.CardNumbers;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.IndexedRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Card numbers masked in every text of an Avro datum: strings and map keys at any depth, through records, arrays,
 * maps and unions ({@link CardNumbers#maskDigits}: digits become {@code *}, the length is kept). Works on the value,
 * not on its encoding, so a digit next to the text (an Avro length prefix, the end of the previous field) can neither
 * hide a card number nor make one. Records are changed in place; lists and maps are copied when one of their texts
 * changes. Pure otherwise.
 */
final class TextMasking {
    private TextMasking() {
    }

    static Object mask(Object datum, Schema schema) {
        if (datum == null) {
            return null;
        }
        return switch (schema.getType()) {
            case STRING -> {
                String text = datum.toString();
                String masked = CardNumbers.maskDigits(text);
                yield masked == text ? datum : masked;
            }
            case RECORD -> {
                IndexedRecord record = (IndexedRecord) datum;
                for (Schema.Field field : schema.getFields()) {
                    Object value = record.get(field.pos());
                    Object masked = mask(value, field.schema());
                    if (masked != value) {
                        record.put(field.pos(), masked);
                    }
                }
                yield record;
            }
            case ARRAY -> {
                List<?> items = (List<?>) datum;
                List<Object> out = null;
                for (int i = 0; i < items.size(); i++) {
                    Object item = items.get(i);
                    Object masked = mask(item, schema.getElementType());
                    if (masked != item && out == null) {
                        out = new ArrayList<>(items);
                    }
                    if (out != null) {
                        out.set(i, masked);
                    }
                }
                yield out == null ? datum : out;
            }
            case MAP -> {
                Map<?, ?> entries = (Map<?, ?>) datum;
                Map<Object, Object> out = new LinkedHashMap<>();
                boolean changed = false;
                for (Map.Entry<?, ?> e : entries.entrySet()) {
                    Object key = mask(e.getKey(), Schema.create(Schema.Type.STRING));
                    Object value = mask(e.getValue(), schema.getValueType());
                    changed |= key != e.getKey() || value != e.getValue();
                    out.put(key, value);
                }
                yield changed ? out : datum;
            }
            case UNION -> mask(datum, schema.getTypes().get(GenericData.get().resolveUnion(schema, datum)));
            default -> datum;
        };
    }
}
