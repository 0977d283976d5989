package io.streamhouse.domain.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;

/**
 * The smallest HTTP registry that lets the client be tested over real HTTP: the five endpoints the client calls,
 * backed by {@link InMemorySchemaRegistryClient}, counting every request so tests can prove what is cached.
 * Failures can be scripted (answer N requests with a fixed status and body, or hang until closed).
 */
final class TestRegistryHttp implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final List<String> contentTypes = new CopyOnWriteArrayList<>();
    private final List<String> subjectsSeen = new CopyOnWriteArrayList<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile int scriptedStatus;
    private volatile String scriptedBody;
    private final AtomicInteger scriptedRemaining = new AtomicInteger();
    private volatile boolean hang;
    private final List<CachingSchemaRegistryClient> clients = new CopyOnWriteArrayList<>();

    TestRegistryHttp() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A client of this registry (5 s timeout), closed when the registry is. */
    CachingSchemaRegistryClient client() {
        CachingSchemaRegistryClient client = new CachingSchemaRegistryClient(url(), java.time.Duration.ofSeconds(5));
        clients.add(client);
        return client;
    }

    InMemorySchemaRegistryClient registry() {
        return registry;
    }

    /** Requests seen for "METHOD /path" (path as sent, still encoded). */
    int calls(String methodAndPath) {
        AtomicInteger count = calls.get(methodAndPath);
        return count == null ? 0 : count.get();
    }

    int totalCalls() {
        return calls.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    List<String> contentTypes() {
        return contentTypes;
    }

    List<String> subjectsSeen() {
        return subjectsSeen;
    }

    /** The next {@code times} requests get this answer instead of a real one. */
    void failNext(int times, int status, String body) {
        scriptedStatus = status;
        scriptedBody = body;
        scriptedRemaining.set(times);
    }

    /** Every request from now on hangs until {@link #close()}. */
    void hang() {
        hang = true;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String rawPath = exchange.getRequestURI().getRawPath();
            calls.computeIfAbsent(method + " " + rawPath, k -> new AtomicInteger()).incrementAndGet();
            String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
            if (contentType != null) {
                contentTypes.add(contentType);
            }
            if (hang) {
                awaitRelease();
                return;
            }
            if (scriptedRemaining.getAndDecrement() > 0) {
                respond(exchange, scriptedStatus, scriptedBody);
                return;
            }
            try {
                respond(exchange, 200, route(method, rawPath, exchange).toString());
            } catch (SchemaRegistryException e) {
                ObjectNode error = JSON.createObjectNode();
                error.put("error_code", e.errorCode());
                // The exception appends "(HTTP s, error code c)"; a real registry's message has no such suffix.
                error.put("message", e.getMessage().replaceFirst(" \\(HTTP \\d+, error code -?\\d+\\)$", ""));
                respond(exchange, e.httpStatus(), error.toString());
            }
        }
    }

    private void awaitRelease() {
        try {
            released.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private JsonNode route(String method, String rawPath, HttpExchange exchange) throws IOException {
        String[] parts = rawPath.substring(1).split("/");
        if (parts[0].equals("subjects")) {
            String subject = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
            subjectsSeen.add(subject);
            if (parts.length == 3 && method.equals("POST")) {
                return JSON.createObjectNode().put("id", registry.register(subject, bodySchema(exchange)));
            }
            if (parts.length == 2 && method.equals("POST")) {
                Schema schema = bodySchema(exchange);
                return JSON.createObjectNode().put("subject", subject).put("id", registry.getId(subject, schema))
                        .put("version", 1).put("schema", schema.toString());
            }
            if (parts.length == 4 && parts[3].equals("latest")) {
                RegisteredSchema latest = registry.getLatest(subject);
                return JSON.createObjectNode().put("subject", subject).put("version", latest.version())
                        .put("id", latest.id()).put("schema", latest.schema().toString());
            }
        }
        if (parts[0].equals("schemas") && parts.length == 3) {
            return JSON.createObjectNode().put("schema", registry.getById(Integer.parseInt(parts[2])).toString());
        }
        if (parts[0].equals("compatibility")) {
            String subject = URLDecoder.decode(parts[2], StandardCharsets.UTF_8);
            return JSON.createObjectNode().put("is_compatible",
                    registry.testCompatibility(subject, bodySchema(exchange)));
        }
        throw new SchemaRegistryException("HTTP 404 Not Found", 404, 404);
    }

    private static Schema bodySchema(HttpExchange exchange) throws IOException {
        JsonNode body = JSON.readTree(exchange.getRequestBody());
        return new Schema.Parser().parse(body.get("schema").asText());
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", CachingSchemaRegistryClient.CONTENT_TYPE);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        clients.forEach(CachingSchemaRegistryClient::close);
        released.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
