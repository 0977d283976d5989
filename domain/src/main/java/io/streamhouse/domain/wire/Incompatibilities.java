package io.streamhouse.domain.wire;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;

/**
 * Turns Avro's compatibility verdicts into sentences a person can act on. Avro reports locations as JSON pointers
 * into the reader schema ({@code /fields/3/type}); this names the field instead ({@code weightGrams}).
 */
final class Incompatibilities {

    private Incompatibilities() {
    }

    /** Empty when {@code reader} can read everything {@code writer} wrote. */
    static List<String> of(Schema reader, Schema writer) {
        return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getResult()
                .getIncompatibilities().stream()
                .map(i -> describe(reader, i))
                .collect(Collectors.toList());
    }

    static String describe(Schema reader, Incompatibility incompatibility) {
        return incompatibility.getType() + " at '" + fieldPath(reader, incompatibility.getLocation()) + "': "
                + incompatibility.getMessage();
    }

    /** "/fields/3/type" → "weightGrams"; nested records give "address.city"; unknown shapes keep the pointer. */
    static String fieldPath(Schema root, String location) {
        if (location == null || location.equals("/")) {
            return "/";
        }
        String[] parts = location.substring(1).split("/");
        StringBuilder path = new StringBuilder();
        Schema current = root;
        try {
            for (int i = 0; i < parts.length; i++) {
                switch (parts[i]) {
                    case "fields" -> {
                        Schema.Field field = current.getFields().get(Integer.parseInt(parts[++i]));
                        path.append(path.length() == 0 ? "" : ".").append(field.name());
                        current = field.schema();
                    }
                    case "type" -> {
                        // The field's type: already entered above.
                    }
                    case "items" -> current = current.getElementType();
                    case "values" -> current = current.getValueType();
                    default -> {
                        if (current.getType() == Schema.Type.UNION && parts[i].chars().allMatch(Character::isDigit)) {
                            current = current.getTypes().get(Integer.parseInt(parts[i]));
                        } else {
                            return location;
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            return location;
        }
        return path.length() == 0 ? location : path.toString();
    }
}
