package io.streamhouse.ingest.http;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.security.testing.TestTokens;
import io.streamhouse.security.Roles;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many concurrent requests from one client that prefers HTTP/2, as the JDK's own {@link HttpClient} does by default:
 * ingest answers them over HTTP/1.1. Over cleartext HTTP/2 (h2c) every request of the client shares one connection,
 * and RESTEasy Reactive reads a body without a content-length on the worker thread, blocking on that connection's
 * monitor (Quarkus 3.33's {@code VertxInputStream}; quarkusio/quarkus#28116): under a drill's load the whole worker
 * pool (200 threads) ended up waiting on it and ingest answered nothing for tens of seconds (thread dumps in
 * docs/history/drills-2026-12-02.md, "Ingest silent"). So ingest does not offer h2c ({@code quarkus.http.http2=false}).
 */
@QuarkusTest
class ConcurrentClientsIT {
    @TestHTTPResource("/v1/transactions/authorize")
    URI authorize;

    @Test
    void concurrentAuthorizesFromAnHttp2PreferringClientAreAllAnsweredOverHttp11() {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThat(client.version()).as("the JDK client's default").isEqualTo(HttpClient.Version.HTTP_2);
        String token = TestTokens.forRole(Roles.PAYMENTS);
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String body = """
                    {"transactionId": "h2-%s", "occurredAt": "2026-03-02T09:00:00Z",
                     "card": {"number": "4000000000000002"}, "customerId": "c-1",
                     "merchant": {"id": "m-1", "name": "Somewhere", "mcc": "5411", "country": "NL"},
                     "amount": "12.00", "currency": "EUR", "channel": "ECOMMERCE"}""".formatted(UUID.randomUUID());
            answers.add(client.sendAsync(HttpRequest.newBuilder(URI.create(authorize + "?deadlineMs=100"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> r = answer.join();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        }
    }
}
