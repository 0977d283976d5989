package io.streamhouse.registry;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema registry process: the JDK's HTTP server with a small thread pool in front of {@link RegistryApi}.
 *
 * <p>{@link #start(RegistryConfig)} keeps the registry in a compacted Kafka topic ({@link KafkaSchemaStore}); it
 * returns once the topic has been replayed and the port is bound, so the first request already sees every schema.
 * {@link #start(String, int, SchemaStore)} takes any store (tests use {@link InMemorySchemaStore}).
 *
 * <p>One instance per topic: it is the only writer, and there is no leader election. Production deployments that need
 * several instances should point clients at Confluent Schema Registry, Karapace or Apicurio (same REST API, same wire
 * format) by configuration; this one exists so development and CI need nothing but a Kafka broker.
 */
public final class SchemaRegistryServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistryServer.class);
    /** A registry answers from memory; a few threads keep a slow client from blocking the others. */
    private static final int HTTP_THREADS = 4;

    /** The standalone registry's environment: Kafka's bootstrap servers (default {@code localhost:9092}). */
    public static final String BOOTSTRAP_ENV = "KAFKA_BOOTSTRAP_SERVERS";
    /** The HTTP port (default 8081). */
    public static final String PORT_ENV = "REGISTRY_PORT";
    /** The interface to bind (default 127.0.0.1; 0.0.0.0 inside a container). */
    public static final String HOST_ENV = "REGISTRY_HOST";
    /** The log topic (default {@code _schemas}). */
    public static final String TOPIC_ENV = "REGISTRY_TOPIC";
    /** The log topic's replication factor when the registry creates it (default 1). */
    public static final String REPLICATION_FACTOR_ENV = "REGISTRY_REPLICATION_FACTOR";
    /** Every variable {@link #configFrom} reads; the Kafka login is {@code KafkaClientSettings}' own three. */
    public static final List<String> ENVIRONMENT = List.of(BOOTSTRAP_ENV, PORT_ENV, HOST_ENV, TOPIC_ENV,
            REPLICATION_FACTOR_ENV);

    private final HttpServer http;
    private final ExecutorService pool;
    private final Registry registry;
    private final URI url;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SchemaRegistryServer(HttpServer http, ExecutorService pool, Registry registry, URI url) {
        this.http = http;
        this.pool = pool;
        this.registry = registry;
        this.url = url;
    }

    /** Persists in Kafka: creates or checks the topic, replays it, then listens. */
    public static SchemaRegistryServer start(RegistryConfig config) {
        Objects.requireNonNull(config, "config");
        SchemaStore store = KafkaSchemaStore.open(config.bootstrapServers(), config.topic(),
                config.replicationFactor());
        return start(config.host(), config.port(), store);
    }

    /** Replays {@code store} and listens on host:port (0 = any free port). The server closes the store. */
    public static SchemaRegistryServer start(String host, int port, SchemaStore store) {
        Objects.requireNonNull(store, "store");
        Registry registry;
        try {
            registry = new Registry(store);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        ExecutorService pool = new ThreadPoolExecutor(HTTP_THREADS, HTTP_THREADS, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), daemonThreads());
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(host, port), 64);
        } catch (IOException e) {
            pool.shutdownNow();
            registry.close();
            throw new UncheckedIOException("Cannot bind schema registry to " + host + ":" + port, e);
        }
        http.createContext("/", new RegistryApi(registry));
        http.setExecutor(pool);
        http.start();
        InetSocketAddress bound = http.getAddress();
        URI url = URI.create("http://" + hostForUrl(host) + ":" + bound.getPort());
        LOG.info("Schema registry listening on {} (store: {})", url, store.describe());
        return new SchemaRegistryServer(http, pool, registry, url);
    }

    private static String hostForUrl(String host) {
        if (host.equals("0.0.0.0") || host.equals("::")) {
            return "127.0.0.1";
        }
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            // Daemon: the HTTP dispatcher thread is what keeps a standalone registry alive, not the workers.
            Thread thread = new Thread(runnable, "schema-registry-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Base URL for clients, e.g. {@code http://127.0.0.1:8081}. */
    public URI url() {
        return url;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /** Stops accepting requests, lets running ones finish briefly, then closes the store's Kafka clients. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        http.stop(0);
        pool.shutdown();
        try {
            if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
        registry.close();
        LOG.info("Schema registry at {} stopped", url);
    }

    /**
     * Runs standalone. Arguments {@code [bootstrapServers [port]]}, else the environment ({@link #ENVIRONMENT}); the
     * Kafka login, as every client's, from {@code KafkaClientSettings} (user {@code registry}).
     */
    public static void main(String[] args) {
        RegistryConfig config = configFrom(args, System::getenv);
        SchemaRegistryServer server = start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "schema-registry-shutdown"));
        // stdout, not only the log: the standalone jar ships no SLF4J binding.
        System.out.println("Schema registry listening on " + server.url() + " (Kafka " + config.bootstrapServers() + ", topic "
                + config.topic() + ")");
    }

    /**
     * The standalone registry's configuration from its arguments {@code [bootstrapServers [port]]} and {@code env} (a
     * variable's name → its value or null); a value that is not a number fails naming its variable.
     */
    public static RegistryConfig configFrom(String[] args, UnaryOperator<String> env) {
        String bootstrap = args.length > 0 ? args[0] : env(env, BOOTSTRAP_ENV, "localhost:9092");
        int port = number(args.length > 1 ? "port argument" : PORT_ENV,
                args.length > 1 ? args[1] : env(env, PORT_ENV, String.valueOf(RegistryConfig.DEFAULT_PORT)));
        int replication = number(REPLICATION_FACTOR_ENV, env(env, REPLICATION_FACTOR_ENV, "1"));
        if (replication > Short.MAX_VALUE) {
            throw new IllegalArgumentException(REPLICATION_FACTOR_ENV + " is too large: " + replication);
        }
        return RegistryConfig.of(bootstrap)
                .withPort(port)
                .withHost(env(env, HOST_ENV, "127.0.0.1"))
                .withTopic(env(env, TOPIC_ENV, RegistryConfig.DEFAULT_TOPIC))
                .withReplicationFactor((short) replication);
    }

    private static int number(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, was '" + value + "'");
        }
    }

    private static String env(UnaryOperator<String> env, String name, String fallback) {
        String value = env.apply(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
