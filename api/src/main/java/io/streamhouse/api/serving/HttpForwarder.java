package io.streamhouse.api.serving;

import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Forwards over HTTP/1.1 with short timeouts: a dead instance must cost a fallback to a standby, not the caller's
 * whole deadline. Any non-200 answer counts as "not answered" (the owner moved, or is shutting down). Each request
 * carries the {@code internal} role's bearer token when one is configured (the instances' /internal/v1 paths need it).
 */
public final class HttpForwarder implements Forwarder {
    private final HttpClient client;
    private final Duration timeout;
    private final Supplier<Optional<String>> token;

    public HttpForwarder(Duration connectTimeout, Duration timeout) {
        this(connectTimeout, timeout, Optional::empty);
    }

    public HttpForwarder(Duration connectTimeout, Duration timeout, Supplier<Optional<String>> token) {
        this.token = token;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
        this.timeout = timeout;
    }

    @Override
    public Optional<byte[]> get(HostInfo host, String pathAndQuery) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + pathAndQuery))
                .timeout(timeout).GET();
        token.get().ifPresent(t -> builder.header("Authorization", "Bearer " + t));
        HttpRequest request = builder.build();
        try {
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
