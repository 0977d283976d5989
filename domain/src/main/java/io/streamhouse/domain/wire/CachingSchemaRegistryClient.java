package io.streamhouse.domain.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.SerializationException;

/**
 * A client of the Confluent Schema Registry REST API (which our own registry, Confluent's, Karapace and Apicurio's
 * compatibility API all speak) that asks the registry as rarely as it can.
 *
 * <p>Caches: id → schema forever (a registry never changes what an id means), and (subject, schema) → id forever
 * (registering is idempotent; an id stays valid even if its subject is later deleted, because bytes already on topics
 * still carry it). Nothing else is cached: {@link #getLatest} and {@link #testCompatibility} always ask. Caches are
 * unbounded: their size is the number of distinct schemas an application meets, which is small.
 *
 * <p>Several base URLs may be given, comma-separated. They are tried in order for every request: a connection
 * failure, a timeout or a 5xx answer moves on to the next URL; a 4xx answer is the registry's verdict and is thrown
 * at once as {@link SchemaRegistryException}. Thread-safe; two threads missing the cache at once may both ask the
 * registry, which is harmless because the answers are equal.
 */
public final class CachingSchemaRegistryClient implements SchemaRegistryClient {

    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final String ACCEPT =
            "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<URI> baseUrls;
    private final Duration requestTimeout;
    private final HttpClient http;
    private final Map<Integer, Schema> schemaById = new ConcurrentHashMap<>();
    private final Map<SubjectSchema, Integer> idBySubjectSchema = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Cache key; {@link Schema#hashCode()} is computed once per schema instance, equality is structural. */
    private record SubjectSchema(String subject, Schema schema) {
    }

    public CachingSchemaRegistryClient(String urls) {
        this(urls, AvroSerdeConfig.DEFAULT_REQUEST_TIMEOUT);
    }

    public CachingSchemaRegistryClient(String urls, Duration requestTimeout) {
        this.baseUrls = parseUrls(urls);
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
        }
        // HTTP/1.1 explicitly: the JDK client otherwise offers an h2c upgrade on plain http, which some registries
        // and proxies mishandle.
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(requestTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    private static List<URI> parseUrls(String urls) {
        Objects.requireNonNull(urls, "urls");
        List<URI> parsed = new ArrayList<>();
        for (String raw : urls.split(",")) {
            String url = raw.trim();
            while (url.endsWith("/")) {
                url = url.substring(0, url.length() - 1);
            }
            if (url.isEmpty()) {
                continue;
            }
            URI uri = URI.create(url);
            if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException("schema registry URL must be http(s): " + url);
            }
            parsed.add(uri);
        }
        if (parsed.isEmpty()) {
            throw new IllegalArgumentException("no schema registry URL in '" + urls + "'");
        }
        return List.copyOf(parsed);
    }

    /** The base URLs in the order they are tried. */
    public List<URI> baseUrls() {
        return baseUrls;
    }

    @Override
    public int register(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(requireSubject(subject), Objects.requireNonNull(schema, "schema"));
        Integer cached = idBySubjectSchema.get(key);
        if (cached != null) {
            return cached;
        }
        JsonNode answer = send("POST", "/subjects/" + encode(subject) + "/versions", schemaBody(schema));
        int id = requiredInt(answer, "id");
        remember(key, id);
        return id;
    }

    @Override
    public int getId(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(requireSubject(subject), Objects.requireNonNull(schema, "schema"));
        Integer cached = idBySubjectSchema.get(key);
        if (cached != null) {
            return cached;
        }
        JsonNode answer = send("POST", "/subjects/" + encode(subject), schemaBody(schema));
        int id = requiredInt(answer, "id");
        remember(key, id);
        return id;
    }

    @Override
    public Schema getById(int id) {
        Schema cached = schemaById.get(id);
        if (cached != null) {
            return cached;
        }
        JsonNode answer = send("GET", "/schemas/ids/" + id, null);
        Schema schema = parseAvro(answer, "schema id " + id);
        Schema previous = schemaById.putIfAbsent(id, schema);
        return previous != null ? previous : schema;
    }

    @Override
    public RegisteredSchema getLatest(String subject) {
        JsonNode answer = send("GET", "/subjects/" + encode(requireSubject(subject)) + "/versions/latest", null);
        int id = requiredInt(answer, "id");
        Schema schema = schemaById.computeIfAbsent(id, ignored -> parseAvro(answer, "subject '" + subject + "'"));
        return new RegisteredSchema(subject, requiredInt(answer, "version"), id, schema);
    }

    @Override
    public boolean testCompatibility(String subject, Schema schema) {
        // The version-less endpoint applies the subject's level to the versions it names (all of them for the
        // *_TRANSITIVE levels), which is exactly the check a registration would face.
        JsonNode answer = send("POST", "/compatibility/subjects/" + encode(requireSubject(subject)) + "/versions",
                schemaBody(Objects.requireNonNull(schema, "schema")));
        JsonNode compatible = answer.get("is_compatible");
        if (compatible == null || !compatible.isBoolean()) {
            throw new SerializationException("Schema registry answer has no boolean 'is_compatible': " + answer);
        }
        return compatible.booleanValue();
    }

    /** Drops the caches. On Java 21+ also closes the HTTP client; on 17 its selector thread ends once unreachable. */
    @Override
    public void close() {
        closed = true;
        schemaById.clear();
        idBySubjectSchema.clear();
        if (http instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // Nothing useful to do: the client is being discarded.
            }
        }
    }

    private void remember(SubjectSchema key, int id) {
        idBySubjectSchema.putIfAbsent(key, id);
        schemaById.putIfAbsent(id, key.schema());
    }

    private static String requireSubject(String subject) {
        if (subject == null || subject.isEmpty()) {
            throw new IllegalArgumentException("subject must not be empty");
        }
        return subject;
    }

    private static String schemaBody(Schema schema) {
        ObjectNode body = JSON.createObjectNode();
        body.put("schema", schema.toString());
        return body.toString();
    }

    /** Path-segment encoding: URLEncoder is for forms and turns spaces into '+', which a path does not decode. */
    static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static int requiredInt(JsonNode answer, String field) {
        JsonNode node = answer.get(field);
        if (node == null || !node.canConvertToInt()) {
            throw new SerializationException("Schema registry answer has no integer '" + field + "': " + answer);
        }
        return node.intValue();
    }

    private static Schema parseAvro(JsonNode answer, String what) {
        JsonNode type = answer.get("schemaType");
        if (type != null && !type.isNull() && !"AVRO".equals(type.asText())) {
            throw new SerializationException("Schema registry returned a " + type.asText() + " schema for " + what
                    + "; only AVRO is supported");
        }
        JsonNode references = answer.get("references");
        if (references != null && references.isArray() && !references.isEmpty()) {
            throw new SerializationException("Schema for " + what + " uses schema references, which this client"
                    + " does not resolve: " + references);
        }
        JsonNode text = answer.get("schema");
        if (text == null || !text.isTextual()) {
            throw new SerializationException("Schema registry answer for " + what + " has no 'schema': " + answer);
        }
        try {
            return new Schema.Parser().parse(text.asText());
        } catch (SchemaParseException e) {
            throw new SerializationException("Schema registry returned an unparsable Avro schema for " + what + ": "
                    + e.getMessage(), e);
        }
    }

    private JsonNode send(String method, String path, String body) {
        if (closed) {
            throw new IllegalStateException("CachingSchemaRegistryClient is closed");
        }
        List<String> failures = new ArrayList<>();
        SchemaRegistryException lastServerError = null;
        for (URI base : baseUrls) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(requestTimeout)
                    .header("Accept", ACCEPT);
            if (body == null) {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                request.header("Content-Type", CONTENT_TYPE)
                        .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            }
            HttpResponse<String> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                failures.add(base + ": " + e.getClass().getSimpleName() + " " + Objects.toString(e.getMessage(), ""));
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptException("Interrupted while calling the schema registry " + method + " " + path, e);
            }
            int status = response.statusCode();
            if (status >= 200 && status < 300) {
                try {
                    return JSON.readTree(response.body());
                } catch (IOException e) {
                    throw new SerializationException("Schema registry " + base + " answered " + method + " " + path
                            + " with a body that is not JSON: " + abbreviate(response.body()), e);
                }
            }
            SchemaRegistryException error = toException(method, path, status, response.body());
            if (status >= 500) {
                lastServerError = error;
                failures.add(base + ": " + error.getMessage());
                continue;
            }
            throw error;
        }
        if (lastServerError != null) {
            if (failures.size() == 1) {
                throw lastServerError;
            }
            throw new SchemaRegistryException("No schema registry answered " + method + " " + path + ": " + failures,
                    lastServerError.httpStatus(), lastServerError.errorCode());
        }
        throw new SerializationException("No schema registry answered " + method + " " + path + ": " + failures);
    }

    private static SchemaRegistryException toException(String method, String path, int status, String body) {
        try {
            JsonNode error = JSON.readTree(body);
            if (error != null && error.has("error_code") && error.has("message")) {
                return new SchemaRegistryException(error.get("message").asText(), status,
                        error.get("error_code").asInt(SchemaRegistryException.UNKNOWN_ERROR_CODE));
            }
        } catch (IOException notJson) {
            // Fall through: a proxy or a non-registry server answered.
        }
        return new SchemaRegistryException("Unexpected answer to " + method + " " + path + ": " + abbreviate(body),
                status, SchemaRegistryException.UNKNOWN_ERROR_CODE);
    }

    private static String abbreviate(String text) {
        if (text == null) {
            return "<no body>";
        }
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }

    @Override
    public String toString() {
        return "CachingSchemaRegistryClient" + Arrays.toString(baseUrls.toArray());
    }
}
