package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.awaitility.Awaitility;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * One card payment authorized through a running stack's ingest as a payments gateway does, for the console's browser
 * test: EUR 1,500 on a card of its own, which the built-in rule large-amount-review holds for REVIEW.
 */
final class ConsolePayment {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ConsolePayment() {
    }

    /** Authorizes {@code transactionId} synchronously; its outcome as ingest answered it. */
    static String authorize(String ingest, String paymentsToken, String transactionId, String cardNumber)
            throws IOException, InterruptedException {
        Map<String, Object> body = Map.of(
                "transactionId", transactionId, "occurredAt", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                "card", Map.of("number", cardNumber),
                "merchant", Map.of("id", "m-console", "name", "Console shop", "mcc", "5411", "country", "NL"),
                "amount", "1500.00", "currency", "EUR", "channel", "ECOMMERCE");
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(ingest.replaceAll("/$", "") + "/v1/transactions/authorize?deadlineMs=5000"))
                .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + paymentsToken)
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("ingest answered HTTP " + r.statusCode() + " for " + transactionId + ": " + r.body());
        }
        JsonNode answer = JSON.readTree(r.body());
        return answer.path("outcome").asText();
    }

    /** Waits until the api's {@code GET /v1/decisions} lists {@code transactionId} (the serving app has folded it). */
    static void awaitListed(String api, String reviewerToken, String transactionId) {
        HttpClient http = HttpClient.newHttpClient();
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api.replaceAll("/$", "") + "/v1/decisions?limit=100"))
                    .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + reviewerToken).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return false;
            }
            for (JsonNode d : JSON.readTree(r.body()).path("decisions")) {
                if (transactionId.equals(d.path("transactionId").asText())) {
                    return true;
                }
            }
            return false;
        });
    }
}
