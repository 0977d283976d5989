package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** The differences between two trees, each named by its path ({@code spec.acls[3].operations[0]}) and both values. */
final class TreeDiff {

    static List<String> between(JsonNode code, JsonNode yaml) {
        List<String> out = new ArrayList<>();
        diff(code, yaml, "", out);
        return out;
    }

    private static void diff(JsonNode code, JsonNode yaml, String path, List<String> out) {
        if (code.isObject() && yaml.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = code.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String p = join(path, e.getKey());
                if (!yaml.has(e.getKey())) {
                    out.add(p + ": the code has " + e.getValue() + ", the YAML has nothing");
                } else {
                    diff(e.getValue(), yaml.get(e.getKey()), p, out);
                }
            }
            for (Iterator<String> it = yaml.fieldNames(); it.hasNext(); ) {
                String key = it.next();
                if (!code.has(key)) {
                    out.add(join(path, key) + ": the YAML has " + yaml.get(key) + ", the code has nothing");
                }
            }
        } else if (code.isArray() && yaml.isArray()) {
            for (int i = 0; i < Math.max(code.size(), yaml.size()); i++) {
                String p = path + "[" + i + "]";
                if (i >= yaml.size()) {
                    out.add(p + ": the code has " + code.get(i) + ", the YAML has nothing");
                } else if (i >= code.size()) {
                    out.add(p + ": the YAML has " + yaml.get(i) + ", the code has nothing");
                } else {
                    diff(code.get(i), yaml.get(i), p, out);
                }
            }
        } else if (!code.equals(yaml)) {
            out.add((path.isEmpty() ? "(root)" : path) + ": the code has " + code + ", the YAML has " + yaml);
        }
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private TreeDiff() {
    }
}
