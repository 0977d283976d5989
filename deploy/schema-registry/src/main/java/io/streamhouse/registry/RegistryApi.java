package io.streamhouse.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.streamhouse.registry.Registry.SchemaRequest;
import io.streamhouse.registry.StoreRecord.SchemaValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confluent Schema Registry's REST API over {@link Registry}: the endpoints serializers, the official clients and
 * common tools call, with Confluent's response shapes and error codes. Every answer, errors included, is JSON with
 * content type {@code application/vnd.schemaregistry.v1+json}; an unknown path is a JSON 404.
 *
 * <p>Extras answered because Confluent's current clients call them: {@code GET /associations/resources/...} is always
 * an empty list (the JavaScript client's default subject-name strategy asks it first and falls back to
 * TopicNameStrategy when nothing is associated), {@code GET /mode} is READWRITE, {@code GET /contexts} is the
 * default context. Query parameters that only matter to features we lack ({@code normalize}, {@code format},
 * {@code subject} on id lookups, {@code fetchMaxId}) are accepted and ignored.
 */
final class RegistryApi implements HttpHandler {

    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final Logger LOG = LoggerFactory.getLogger(RegistryApi.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

    private final Registry registry;

    RegistryApi(Registry registry) {
        this.registry = registry;
    }

    private record Response(int status, String body) {
        static Response ok(JsonNode body) {
            return new Response(200, body.toString());
        }
    }

    private record Request(String method, List<String> path, Map<String, String> query, HttpExchange exchange) {
        boolean flag(String name) {
            return Boolean.parseBoolean(query.getOrDefault(name, "false").trim());
        }

        String segment(int i) {
            return path.get(i);
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Response response;
            try {
                Request request = new Request(exchange.getRequestMethod().toUpperCase(java.util.Locale.ROOT),
                        segments(exchange.getRequestURI().getRawPath()), query(exchange.getRequestURI().getRawQuery()),
                        exchange);
                response = route(request);
            } catch (RegistryException e) {
                response = error(e.httpStatus(), e.errorCode(), e.getMessage());
            } catch (RuntimeException e) {
                LOG.error("Unexpected failure answering {} {}", exchange.getRequestMethod(), exchange.getRequestURI(),
                        e);
                response = error(500, 500, "Internal Server Error: " + e);
            }
            LOG.debug("{} {} -> {}", exchange.getRequestMethod(), exchange.getRequestURI(), response.status());
            byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.sendResponseHeaders(response.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private Response route(Request r) {
        List<String> p = r.path();
        if (p.isEmpty()) {
            return only(r, "GET", () -> Response.ok(JSON.createObjectNode()));
        }
        return switch (p.get(0)) {
            case "subjects" -> subjects(r);
            case "schemas" -> schemas(r);
            case "config" -> config(r);
            case "compatibility" -> compatibility(r);
            case "mode" -> p.size() <= 2
                    ? only(r, "GET", () -> Response.ok(JSON.createObjectNode().put("mode", "READWRITE")))
                    : notFound();
            case "contexts" -> p.size() == 1
                    ? only(r, "GET", () -> Response.ok(JSON.createArrayNode().add(".")))
                    : notFound();
            case "associations" -> p.size() >= 2 && p.get(1).equals("resources")
                    ? only(r, "GET", () -> Response.ok(JSON.createArrayNode()))
                    : notFound();
            default -> notFound();
        };
    }

    // ---- /subjects ----

    private Response subjects(Request r) {
        List<String> p = r.path();
        if (p.size() == 1) {
            return only(r, "GET", () -> {
                String prefix = r.query().getOrDefault("subjectPrefix", "");
                ArrayNode subjects = JSON.createArrayNode();
                registry.subjects(r.flag("deleted")).stream().filter(s -> s.startsWith(prefix)).forEach(subjects::add);
                return Response.ok(subjects);
            });
        }
        String subject = r.segment(1);
        if (p.size() == 2) {
            return switch (r.method()) {
                case "POST" -> Response.ok(lookupAnswer(registry.lookup(subject, schemaRequest(r),
                        r.flag("deleted"))));
                case "DELETE" -> Response.ok(numbers(registry.deleteSubject(subject, r.flag("permanent"))));
                default -> throw RegistryException.methodNotAllowed();
            };
        }
        if (!p.get(2).equals("versions")) {
            return notFound();
        }
        if (p.size() == 3) {
            return switch (r.method()) {
                case "GET" -> Response.ok(numbers(registry.versions(subject, r.flag("deleted"))));
                case "POST" -> Response.ok(JSON.createObjectNode()
                        .put("id", registry.register(subject, schemaRequest(r))));
                default -> throw RegistryException.methodNotAllowed();
            };
        }
        int version = version(r.segment(3));
        if (p.size() == 4) {
            return switch (r.method()) {
                case "GET" -> Response.ok(versionAnswer(registry.version(subject, version, r.flag("deleted"))));
                case "DELETE" -> Response.ok(JSON.getNodeFactory()
                        .numberNode(registry.deleteVersion(subject, version, r.flag("permanent"))));
                default -> throw RegistryException.methodNotAllowed();
            };
        }
        if (p.size() == 5 && p.get(4).equals("schema")) {
            return only(r, "GET", () -> new Response(200,
                    registry.version(subject, version, r.flag("deleted")).schema()));
        }
        if (p.size() == 5 && p.get(4).equals("referencedby")) {
            return only(r, "GET", () -> {
                registry.version(subject, version, true);
                return Response.ok(JSON.createArrayNode()); // no references are ever stored
            });
        }
        return notFound();
    }

    // ---- /schemas ----

    private Response schemas(Request r) {
        List<String> p = r.path();
        if (p.size() == 2 && p.get(1).equals("types")) {
            return only(r, "GET", () -> Response.ok(JSON.createArrayNode().add("AVRO")));
        }
        if (p.size() < 3 || !p.get(1).equals("ids")) {
            return notFound();
        }
        int id;
        try {
            id = Integer.parseInt(p.get(2));
        } catch (NumberFormatException e) {
            return notFound();
        }
        if (p.size() == 3) {
            return only(r, "GET", () -> Response.ok(JSON.createObjectNode().put("schema", registry.schemaById(id))));
        }
        if (p.size() == 4) {
            return switch (p.get(3)) {
                case "schema" -> only(r, "GET", () -> new Response(200, registry.schemaById(id)));
                case "versions" -> only(r, "GET", () -> {
                    ArrayNode uses = JSON.createArrayNode();
                    registry.usesOfId(id, r.flag("deleted")).forEach(v ->
                            uses.addObject().put("subject", v.subject()).put("version", v.version()));
                    return Response.ok(uses);
                });
                case "subjects" -> only(r, "GET", () -> {
                    ArrayNode subjects = JSON.createArrayNode();
                    registry.usesOfId(id, r.flag("deleted")).stream().map(SchemaValue::subject).distinct()
                            .forEach(subjects::add);
                    return Response.ok(subjects);
                });
                default -> notFound();
            };
        }
        return notFound();
    }

    // ---- /config ----

    private Response config(Request r) {
        List<String> p = r.path();
        if (p.size() == 1) {
            return switch (r.method()) {
                case "GET" -> levelAnswer(registry.globalLevel());
                case "PUT" -> Response.ok(JSON.createObjectNode()
                        .put("compatibility", registry.setGlobalLevel(levelFrom(r)).name()));
                case "DELETE" -> levelAnswer(registry.resetGlobalLevel());
                default -> throw RegistryException.methodNotAllowed();
            };
        }
        if (p.size() != 2) {
            return notFound();
        }
        String subject = r.segment(1);
        return switch (r.method()) {
            case "GET" -> levelAnswer(registry.subjectLevel(subject).orElseGet(() -> {
                if (r.flag("defaultToGlobal")) {
                    return registry.globalLevel();
                }
                throw RegistryException.subjectCompatibilityNotConfigured(subject);
            }));
            case "PUT" -> Response.ok(JSON.createObjectNode()
                    .put("compatibility", registry.setSubjectLevel(subject, levelFrom(r)).name()));
            case "DELETE" -> levelAnswer(registry.deleteSubjectLevel(subject));
            default -> throw RegistryException.methodNotAllowed();
        };
    }

    private static Response levelAnswer(CompatibilityLevel level) {
        return Response.ok(JSON.createObjectNode().put("compatibilityLevel", level.name()));
    }

    private static CompatibilityLevel levelFrom(Request r) {
        JsonNode body = body(r);
        JsonNode level = body.get("compatibility");
        String text = level == null || level.isNull() ? null : level.asText();
        return CompatibilityLevel.parse(text).orElseThrow(() -> RegistryException.invalidCompatibilityLevel(text));
    }

    // ---- /compatibility ----

    private Response compatibility(Request r) {
        List<String> p = r.path();
        if (p.size() < 4 || !p.get(1).equals("subjects") || !p.get(3).equals("versions") || p.size() > 5) {
            return notFound();
        }
        String subject = r.segment(2);
        return only(r, "POST", () -> {
            List<String> problems = p.size() == 5
                    ? registry.checkAgainstVersion(subject, version(r.segment(4)), schemaRequest(r))
                    : registry.checkAgainstSubject(subject, schemaRequest(r));
            ObjectNode answer = JSON.createObjectNode().put("is_compatible", problems.isEmpty());
            if (r.flag("verbose")) {
                ArrayNode messages = answer.putArray("messages");
                problems.forEach(messages::add);
            }
            return Response.ok(answer);
        });
    }

    // ---- shapes ----

    private static ObjectNode versionAnswer(SchemaValue v) {
        ObjectNode node = JSON.createObjectNode().put("subject", v.subject()).put("version", v.version())
                .put("id", v.id());
        if (!v.schemaType().equals("AVRO")) {
            node.put("schemaType", v.schemaType());
        }
        return node.put("schema", v.schema());
    }

    private static ObjectNode lookupAnswer(SchemaValue v) {
        ObjectNode node = JSON.createObjectNode().put("subject", v.subject()).put("id", v.id())
                .put("version", v.version());
        if (!v.schemaType().equals("AVRO")) {
            node.put("schemaType", v.schemaType());
        }
        return node.put("schema", v.schema());
    }

    private static ArrayNode numbers(List<Integer> numbers) {
        ArrayNode array = JSON.createArrayNode();
        numbers.forEach(array::add);
        return array;
    }

    private static SchemaRequest schemaRequest(Request r) {
        JsonNode body = body(r);
        JsonNode schema = body.get("schema");
        JsonNode type = body.get("schemaType");
        JsonNode references = body.get("references");
        return new SchemaRequest(
                schema == null || schema.isNull() ? null : schema.asText(),
                type == null || type.isNull() ? null : type.asText(),
                references != null && references.isArray() && !references.isEmpty());
    }

    private static JsonNode body(Request r) {
        byte[] bytes = readBody(r.exchange());
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw RegistryException.badRequest("Request body must be a JSON object");
            }
            return node;
        } catch (IOException e) {
            throw RegistryException.badRequest("Request body is not JSON: " + e.getMessage());
        }
    }

    private static byte[] readBody(HttpExchange exchange) {
        try (InputStream in = exchange.getRequestBody()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) > 0) {
                out.write(buffer, 0, n);
                if (out.size() > MAX_BODY_BYTES) {
                    throw new RegistryException(413, 413, "Request body larger than " + MAX_BODY_BYTES + " bytes");
                }
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw RegistryException.badRequest("Cannot read request body: " + e.getMessage());
        }
    }

    /** "latest" or -1 is the newest version; otherwise 1..2^31-1; anything else is 42202. */
    static int version(String text) {
        if (text.equals("latest") || text.equals("-1")) {
            return Registry.LATEST;
        }
        try {
            int version = Integer.parseInt(text);
            if (version >= 1) {
                return version;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw RegistryException.invalidVersion(text);
    }

    private static Response only(Request r, String method, java.util.function.Supplier<Response> answer) {
        if (!r.method().equals(method)) {
            throw RegistryException.methodNotAllowed();
        }
        return answer.get();
    }

    private static Response notFound() {
        throw RegistryException.notFound();
    }

    private static Response error(int status, int code, String message) {
        return new Response(status, JSON.createObjectNode().put("error_code", code).put("message", message)
                .toString());
    }

    /**
     * Path segments, each percent-decoded on its own so that an encoded '/' stays inside its subject name. '+' is a
     * literal plus in a path (only forms turn it into a space).
     */
    static List<String> segments(String rawPath) {
        List<String> segments = new ArrayList<>();
        if (rawPath == null) {
            return segments;
        }
        for (String raw : rawPath.split("/")) {
            if (!raw.isEmpty()) {
                segments.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return segments;
    }

    static Map<String, String> query(String rawQuery) {
        Map<String, String> query = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return query;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            query.putIfAbsent(name, value);
        }
        return query;
    }
}
