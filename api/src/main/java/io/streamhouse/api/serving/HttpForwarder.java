package io.streamhouse.api.serving;

import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * Forwards over HTTP/1.1 with short timeouts: a dead instance must cost a fallback to a standby, not the caller's
 * whole deadline. Any non-200 answer counts as "not answered" (the owner moved, or is shutting down).
 */
public final class HttpForwarder implements Forwarder {
    private final HttpClient client;
    private final Duration timeout;

    public HttpForwarder(Duration connectTimeout, Duration timeout) {
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
        this.timeout = timeout;
    }

    @Override
    public Optional<byte[]> get(HostInfo host, String pathAndQuery) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + pathAndQuery))
                .timeout(timeout).GET().build();
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
