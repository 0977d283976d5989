package io.streamhouse.api.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.api.ApiConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The api's side of the lake's query service. Checks a request's fields (so that a bad field is named in a 400 before
 * anything is sent), then forwards it and hands back the engine's status and JSON body unchanged: the engine decides
 * whether the statement is a query (with Flink's parser), applies the row cap and enforces the timeout.
 *
 * <p>Never hangs: the HTTP call waits for the query's timeout plus {@link #GRACE}, by which time the engine has
 * answered with its own explicit 504; if it has not, this answers 504 itself.
 */
@ApplicationScoped
public class SnapshotSqlClient {

    public static final int MAX_ROWS_LIMIT = 10_000;
    public static final int DEFAULT_MAX_ROWS = 1000;
    public static final long MAX_TIMEOUT_MS = 300_000;
    public static final long DEFAULT_TIMEOUT_MS = 30_000;
    static final Duration GRACE = Duration.ofSeconds(15);

    private final Optional<URI> engine;
    private final ObjectMapper json;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    public SnapshotSqlClient(ApiConfig config, ObjectMapper json) {
        this.engine = config.lakeQuery().url();
        this.json = json;
    }

    /** A checked request. */
    public record Query(String sql, int maxRows, long timeoutMillis) {
    }

    /** One field's problem, named as the client sent it. */
    public record FieldProblem(String field, String message) {
    }

    /** The engine's answer: its status and JSON body (a problem document unless 200). */
    public record Answer(int status, JsonNode body) {
    }

    /** Checks the request's fields; empty list: {@code query} is usable. */
    public static List<FieldProblem> check(String sql, Integer maxRows, Long timeoutMillis) {
        List<FieldProblem> problems = new ArrayList<>();
        if (sql == null || sql.isBlank()) {
            problems.add(new FieldProblem("sql", "is required: one SQL query as a string"));
        }
        if (maxRows != null && (maxRows < 1 || maxRows > MAX_ROWS_LIMIT)) {
            problems.add(new FieldProblem("maxRows", "must be from 1 to " + MAX_ROWS_LIMIT + ", was " + maxRows));
        }
        if (timeoutMillis != null && (timeoutMillis < 1 || timeoutMillis > MAX_TIMEOUT_MS)) {
            problems.add(new FieldProblem("timeoutMillis", "must be from 1 to " + MAX_TIMEOUT_MS + ", was " + timeoutMillis));
        }
        return problems;
    }

    public static Query query(String sql, Integer maxRows, Long timeoutMillis) {
        return new Query(sql, maxRows == null ? DEFAULT_MAX_ROWS : maxRows, timeoutMillis == null ? DEFAULT_TIMEOUT_MS : timeoutMillis);
    }

    public Answer run(Query query) {
        if (engine.isEmpty()) {
            return problem(503, "SQL engine not configured", "this api has no lake query service "
                    + "(streamhouse.lake-query.url / STREAMHOUSE_LAKE_QUERY_URL is not set)");
        }
        ObjectNode body = json.createObjectNode().put("sql", query.sql()).put("maxRows", query.maxRows())
                .put("timeoutMillis", query.timeoutMillis());
        HttpRequest request = HttpRequest.newBuilder(engine.get().resolve("/v1/query"))
                .timeout(Duration.ofMillis(query.timeoutMillis()).plus(GRACE))
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            return problem(504, "Query timed out", "the SQL engine did not answer within " + query.timeoutMillis() + " ms + "
                    + GRACE.toSeconds() + " s");
        } catch (IOException e) {
            return problem(503, "SQL engine unavailable", "the lake query service at " + engine.get()
                    + " is not reachable (starting, or stopped): " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return problem(503, "SQL engine unavailable", "interrupted while waiting for the SQL engine");
        }
        try {
            return new Answer(response.statusCode(), json.readTree(response.body()));
        } catch (IOException e) {
            return problem(502, "Bad answer from the SQL engine", "status " + response.statusCode() + ", body not JSON");
        }
    }

    private Answer problem(int status, String title, String detail) {
        ObjectNode p = json.createObjectNode();
        p.put("type", "about:blank");
        p.put("title", title);
        p.put("status", status);
        p.put("detail", detail);
        return new Answer(status, p);
    }
}
