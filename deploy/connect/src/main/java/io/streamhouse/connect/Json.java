package io.streamhouse.connect;

import java.util.Map;

/** The little JSON the parent writes (flat string maps), without a JSON library on the parent's classpath. */
final class Json {

    private Json() {
    }

    static String object(Map<String, String> fields) {
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, String> e : fields.entrySet()) {
            if (out.length() > 1) {
                out.append(',');
            }
            string(out, e.getKey());
            out.append(':');
            string(out, e.getValue());
        }
        return out.append('}').toString();
    }

    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
