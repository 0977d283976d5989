package io.streamhouse.ingest.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.ingest.fuzz.FuzzCase.Expect;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * Seeded payloads for one endpoint: valid ones (each with its own ids, so every one is a new event), valid ones at
 * the edges of what the contract allows, and malformed ones made by mutating a valid payload — structurally
 * (truncated, bytes flipped, nested 10,000 deep, over the body limit, wrong content type) or field by field (removed,
 * unknown, replaced by a hostile value). A mutation that must make the payload invalid is expected to be refused; one
 * that might leave it valid is only required not to fail the server.
 */
final class Payloads {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final Instant T0 = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(1, ChronoUnit.HOURS);

    /** A hostile replacement for a field's value; none is a valid value of any field of these endpoints. */
    private static final List<JsonNode> HOSTILE = List.of(
            F.nullNode(), F.booleanNode(true), F.numberNode(-1), F.numberNode(Long.MAX_VALUE), F.textNode(""),
            F.textNode(" "), F.textNode("\u0000"), F.textNode("\uD800"), F.textNode("💳💳💳"), F.textNode("NaN"),
            F.textNode("1e999999999"), F.textNode("-0"), F.textNode("9".repeat(400)), F.textNode("x".repeat(70_000)),
            F.objectNode(), F.arrayNode(), F.textNode("' OR 1=1 --"), F.textNode("${jndi:ldap://127.0.0.1/a}"),
            F.textNode("<script>alert(1)</script>"), F.numberNode(1e308), F.numberNode(-1e308));

    /** Raw JSON number texts Jackson reads as numbers that no field accepts as they are. */
    private static final List<String> HOSTILE_NUMBERS = List.of("1e400", "-1e400", "1E999999999", "1e-400",
            "123456789012345678901234567890", "0.000000000000000000000000001");

    /** What an endpoint's valid payload looks like and which of its fields the contract requires. */
    interface Shape {
        String path(long i, SplittableRandom random);

        ObjectNode valid(long i, SplittableRandom random);

        /** Valid payloads at the edges of the contract; each entry must be accepted. */
        List<ObjectNode> edges(long i);

        /** Payloads that break one rule of the contract each; each must be refused. */
        List<ObjectNode> broken(long i);

        List<String> required();

        /** Whether a JSON array body is a batch (POST /v1/transactions). */
        boolean batches();
    }

    private final Shape shape;
    private final SplittableRandom random;
    private final String name;

    Payloads(String name, Shape shape, long seed) {
        this.name = name;
        this.shape = shape;
        this.random = new SplittableRandom(seed);
    }

    List<FuzzCase> generate(int count) {
        List<FuzzCase> cases = new ArrayList<>(count);
        long i = 0;
        while (cases.size() < count) {
            i++;
            double roll = random.nextDouble();
            String path = shape.path(i, random);
            if (roll < 0.10) {
                cases.add(json("valid", path, shape.valid(i, random), Expect.ACCEPT));
            } else if (roll < 0.14) {
                List<ObjectNode> edges = shape.edges(i);
                cases.add(json("edge", path, edges.get(random.nextInt(edges.size())), Expect.ACCEPT));
            } else if (roll < 0.20) {
                List<ObjectNode> broken = shape.broken(i);
                int k = random.nextInt(broken.size());
                cases.add(json("broken rule #" + k, path, broken.get(k), Expect.REJECT));
            } else if (roll < 0.30) {
                ObjectNode p = shape.valid(i, random);
                List<String> required = shape.required();
                String field = required.get(random.nextInt(required.size()));
                p.remove(field);
                cases.add(json("without required " + field, path, p, Expect.REJECT));
            } else if (roll < 0.36) {
                ObjectNode p = shape.valid(i, random);
                p.put("unexpected" + random.nextInt(3), "x");
                cases.add(json("unknown field", path, p, Expect.REJECT));
            } else if (roll < 0.60) {
                ObjectNode p = shape.valid(i, random);
                String field = replaceRandomLeaf(p);
                cases.add(json("hostile value at " + field, path, p, Expect.EITHER));
            } else if (roll < 0.66) {
                ObjectNode p = shape.valid(i, random);
                String number = HOSTILE_NUMBERS.get(random.nextInt(HOSTILE_NUMBERS.size()));
                String field = leafPaths(p).get(random.nextInt(leafPaths(p).size()));
                String text = withRawNumber(p, field, number);
                cases.add(new FuzzCase("raw number " + number + " at " + field, path, "application/json",
                        text.getBytes(StandardCharsets.UTF_8), Expect.EITHER));
            } else if (roll < 0.74) {
                byte[] body = bytes(shape.valid(i, random));
                int cut = random.nextInt(Math.max(1, body.length - 1));
                cases.add(new FuzzCase("truncated at " + cut, path, "application/json", java.util.Arrays.copyOf(body, cut),
                        Expect.REJECT));
            } else if (roll < 0.84) {
                byte[] body = bytes(shape.valid(i, random));
                int flips = 1 + random.nextInt(3);
                for (int f = 0; f < flips; f++) {
                    body[random.nextInt(body.length)] = (byte) random.nextInt(256);
                }
                cases.add(new FuzzCase(flips + " bytes flipped", path, "application/json", body, Expect.EITHER));
            } else if (roll < 0.87) {
                cases.add(new FuzzCase("nested 10,000 deep", path, "application/json",
                        ("{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}").getBytes(StandardCharsets.UTF_8), Expect.REJECT));
            } else if (roll < 0.89) {
                byte[] big = new byte[600 * 1024];
                java.util.Arrays.fill(big, (byte) ' ');
                byte[] valid = bytes(shape.valid(i, random));
                System.arraycopy(valid, 0, big, 0, valid.length);
                cases.add(new FuzzCase("600 KB body", path, "application/json", big, Expect.REJECT));
            } else if (roll < 0.91) {
                cases.add(new FuzzCase("text/plain body", path, "text/plain", bytes(shape.valid(i, random)), Expect.REJECT));
            } else if (roll < 0.95) {
                String[] notObjects = {"", "null", "42", "\"x\"", "true", "[1,2,3]", "{", "}", "{}{}", "\u0000", "[null]"};
                String body = notObjects[random.nextInt(notObjects.length)];
                cases.add(new FuzzCase("not an object: '" + body + "'", path, "application/json",
                        body.getBytes(StandardCharsets.UTF_8), Expect.REJECT));
            } else if (roll < 0.97 && shape.batches()) {
                ArrayNode batch = F.arrayNode();
                int n = 1 + random.nextInt(5);
                for (int k = 0; k < n; k++) {
                    batch.add(shape.valid(i * 100 + k + 1_000_000_000L, random));
                }
                cases.add(json("valid batch of " + n, path, batch, Expect.ACCEPT));
            } else if (shape.batches()) {
                ArrayNode batch = F.arrayNode();
                batch.add(shape.valid(i * 100 + 1_000_000_000L, random));
                ObjectNode bad = shape.valid(i * 100 + 1 + 1_000_000_000L, random);
                bad.remove(shape.required().get(0));
                batch.add(bad);
                cases.add(json("batch with one invalid item", path, batch, Expect.REJECT));
            } else {
                ObjectNode p = shape.valid(i, random);
                ObjectNode twice = p.deepCopy();
                String text = bytesText(twice);
                String field = shape.required().get(0);
                // A duplicated key: Jackson keeps the last; either answer is fine as long as it is not a 5xx.
                String dup = text.replaceFirst("\\{", "{\"" + field + "\":null,");
                cases.add(new FuzzCase("duplicate key " + field, path, "application/json",
                        dup.getBytes(StandardCharsets.UTF_8), Expect.EITHER));
            }
        }
        return cases;
    }

    private FuzzCase json(String what, String path, JsonNode payload, Expect expect) {
        return new FuzzCase(name + ": " + what, path, "application/json", bytes(payload), expect);
    }

    private String replaceRandomLeaf(ObjectNode p) {
        List<String> leaves = leafPaths(p);
        String leaf = leaves.get(random.nextInt(leaves.size()));
        JsonNode hostile = HOSTILE.get(random.nextInt(HOSTILE.size()));
        set(p, leaf, hostile);
        return leaf + "=" + abbreviate(hostile.toString());
    }

    private static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }

    static List<String> leafPaths(JsonNode node) {
        List<String> out = new ArrayList<>();
        collect(node, "", out);
        return out;
    }

    private static void collect(JsonNode node, String prefix, List<String> out) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                collect(e.getValue(), prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), out);
            }
            if (prefix.isEmpty()) {
                return;
            }
        }
        if (!prefix.isEmpty()) {
            out.add(prefix);
        }
    }

    private static void set(ObjectNode root, String dotted, JsonNode value) {
        String[] parts = dotted.split("\\.");
        ObjectNode parent = root;
        for (int k = 0; k < parts.length - 1; k++) {
            parent = (ObjectNode) parent.get(parts[k]);
        }
        parent.set(parts[parts.length - 1], value);
    }

    /** The payload's text with the value at {@code dotted} replaced by a raw JSON number token. */
    private static String withRawNumber(ObjectNode p, String dotted, String number) {
        String marker = "\"@@RAW@@\"";
        set(p, dotted, F.textNode("@@RAW@@"));
        return bytesText(p).replace(marker, number);
    }

    static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String bytesText(JsonNode node) {
        return new String(bytes(node), StandardCharsets.UTF_8);
    }

    static String at(long minutes) {
        return T0.plus(minutes % 50, ChronoUnit.MINUTES).toString();
    }

    static <T> T pick(SplittableRandom random, List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    static LongFunction<String> ids(String prefix, String run) {
        return i -> prefix + "-" + run + "-" + i;
    }
}
