package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * How current the api's projections are, from what each api instance already says over HTTP: its readiness
 * ({@code GET /q/health/ready}: the serving projections' Streams state and the decisions app's state and rule count),
 * beside the serving group's lag in records and seconds that {@link ProcessorLag} reads from the log. Per-key
 * freshness ({@code meta.freshness} of each lookup) stays in the lookups; this is the instance-wide view.
 */
final class ServingFreshness {
    static final String SERVING_CHECK = "serving-projections-running";
    static final String DECISIONS_CHECK = "kafka-streams-running";
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One instance's readiness answer as {@code {"url", "ready", "projections", "decisions", "rules"}}; a body that is
     * not a MicroProfile health answer is {@code {"url", "ready": null, "unknown"}}.
     */
    static ObjectNode instance(String url, int status, String body) {
        ObjectNode o = JsonNodeFactory.instance.objectNode().put("url", url);
        JsonNode health;
        try {
            health = JSON.readTree(body);
        } catch (IOException e) {
            health = null;
        }
        if (health == null || !health.has("status") || !health.path("checks").isArray()) {
            return o.putNull("ready").put("unknown", "its readiness answered " + status + " without a health report");
        }
        o.put("ready", "UP".equals(health.path("status").asText()));
        o.putNull("projections");
        o.putNull("decisions");
        for (JsonNode check : health.path("checks")) {
            JsonNode data = check.path("data");
            switch (check.path("name").asText()) {
                case SERVING_CHECK -> o.put("projections", data.path("state").asText(check.path("status").asText()));
                case DECISIONS_CHECK -> {
                    o.put("decisions", data.path("state").asText(check.path("status").asText()));
                    o.put("rules", data.path("rules").asLong());
                }
                default -> {
                }
            }
        }
        return o;
    }

    /** Asks one instance; an unknown entry when it does not answer within {@code timeout}. */
    static ObjectNode ask(HttpClient http, URI api, Duration timeout) throws InterruptedException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(api.resolve("/q/health/ready")).timeout(timeout)
                    .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
            return instance(api.toString(), r.statusCode(), r.body());
        } catch (IOException e) {
            return JsonNodeFactory.instance.objectNode().put("url", api.toString()).putNull("ready")
                    .put("unknown", "its readiness did not answer: " + e.getMessage());
        }
    }

    private ServingFreshness() {
    }
}
