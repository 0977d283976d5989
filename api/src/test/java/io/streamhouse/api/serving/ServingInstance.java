package io.streamhouse.api.serving;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.projections.serving.OpenStores;
import io.streamhouse.projections.serving.ServingTopology;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One api instance without Quarkus: the serving Streams app, its router and query layer, and a JDK HTTP server
 * answering the instance-to-instance endpoints with the same {@link InternalAnswers} as the REST resource.
 */
final class ServingInstance implements AutoCloseable {
    final HttpServer http;
    final KafkaStreams streams;
    final OpenStores openStores;
    final KeyRouter router;
    final ProjectionQueries queries;
    final HostInfo self;
    private boolean closed;

    ServingInstance(String applicationId, String bootstrap, TopicSerdes serdes, Path stateDir, Clock clock) {
        try {
            http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        self = new HostInfo("127.0.0.1", http.getAddress().getPort());
        openStores = new OpenStores();
        streams = new KafkaStreams(ServingTopology.build(ServingTopology.Config.defaults(), serdes, openStores),
                ServingStreams.properties(applicationId, bootstrap, self, stateDir.resolve("i-" + self.port()), 1, 100, 1));
        router = new KeyRouter(streams, openStores, self, new HttpForwarder(Duration.ofMillis(300), Duration.ofSeconds(2)),
                ServingStreams.partitionsByStore());
        queries = new ProjectionQueries(() -> router, clock);
        http.createContext("/internal/v1/", this::handle);
        http.start();
        streams.start();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        Map<String, String> query = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                query.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        Optional<byte[]> body = Optional.empty();
        if (path.startsWith(KeyRouter.INTERNAL_STATE_PATH)) {
            String[] parts = path.substring(KeyRouter.INTERNAL_STATE_PATH.length()).split("/", 2);
            body = InternalAnswers.state(router, parts[0], URLDecoder.decode(parts[1], StandardCharsets.UTF_8), query.get("asOf"));
        } else if (path.startsWith(KeyRouter.INTERNAL_FEED_PATH)) {
            body = InternalAnswers.feed(router, path.substring(KeyRouter.INTERNAL_FEED_PATH.length()), query.get("before"),
                    query.get("limit"), query.get("partitions"));
        }
        if (body.isPresent()) {
            exchange.sendResponseHeaders(200, body.get().length);
            exchange.getResponseBody().write(body.get());
        } else {
            exchange.sendResponseHeaders(503, -1);
        }
        exchange.close();
    }

    /**
     * Like a killed process as far as the others can tell: the HTTP port stops answering and the Streams member
     * disappears without leaving the group (Streams does not leave on close), so its partitions move only after the
     * session timeout.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        http.stop(0);
        streams.close(Duration.ofSeconds(10));
    }
}
