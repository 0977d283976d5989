package io.streamhouse.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A plain HTTP client for asserting on the registry's exact answers (status, error_code, JSON shape). */
final class RegistryHttp {

    static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    RegistryHttp(URI base) {
        this.base = base;
    }

    /** One answer; {@code json} is null when the body is not JSON. */
    record Answer(int status, String body, JsonNode json, String contentType) {
        int errorCode() {
            return json == null || !json.has("error_code") ? 0 : json.get("error_code").asInt();
        }

        String message() {
            return json == null || !json.has("message") ? "" : json.get("message").asText();
        }
    }

    Answer get(String path) {
        return send("GET", path, null);
    }

    Answer post(String path, String body) {
        return send("POST", path, body);
    }

    Answer put(String path, String body) {
        return send("PUT", path, body);
    }

    Answer delete(String path) {
        return send("DELETE", path, null);
    }

    /** Registers and returns the id, failing the test on any error answer. */
    int register(String subject, String avroSchema) {
        Answer answer = post("/subjects/" + subject + "/versions", schemaBody(avroSchema));
        if (answer.status() != 200) {
            throw new AssertionError("register " + subject + " failed: " + answer);
        }
        return answer.json().get("id").asInt();
    }

    static String schemaBody(String avroSchema) {
        return JSON.createObjectNode().put("schema", avroSchema).toString();
    }

    Answer send(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/vnd.schemaregistry.v1+json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json;
            try {
                json = JSON.readTree(response.body());
            } catch (IOException notJson) {
                json = null;
            }
            return new Answer(response.statusCode(), response.body(), json,
                    response.headers().firstValue("Content-Type").orElse(""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
