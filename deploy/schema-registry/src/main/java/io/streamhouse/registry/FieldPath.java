package io.streamhouse.registry;

import org.apache.avro.Schema;

/**
 * Names the field behind one of Avro's compatibility locations: {@code /fields/3/type} → {@code weightGrams},
 * {@code /fields/1/type/fields/0} → {@code address.city}. People fix fields, not JSON pointers.
 */
final class FieldPath {

    private FieldPath() {
    }

    static String of(Schema root, String location) {
        if (location == null || location.equals("/") || location.isEmpty()) {
            return "/";
        }
        String[] parts = location.substring(1).split("/");
        StringBuilder path = new StringBuilder();
        Schema current = root;
        try {
            for (int i = 0; i < parts.length; i++) {
                String part = parts[i];
                if (part.equals("fields")) {
                    Schema.Field field = current.getFields().get(Integer.parseInt(parts[++i]));
                    path.append(path.length() == 0 ? "" : ".").append(field.name());
                    current = field.schema();
                } else if (part.equals("items")) {
                    current = current.getElementType();
                } else if (part.equals("values")) {
                    current = current.getValueType();
                } else if (current.getType() == Schema.Type.UNION && part.chars().allMatch(Character::isDigit)) {
                    current = current.getTypes().get(Integer.parseInt(part));
                } else if (!part.equals("type")) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            return location;
        }
        return path.length() == 0 ? location : path.toString();
    }
}
