package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.control.HealthCheck;
import io.streamhouse.control.HealthCheck.Verdict;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The connectors of the Kafka Connect worker ({@code shop-cdc}, {@code lake}) and their tasks, as the worker's REST API
 * says in one request ({@code GET /connectors?expand=status}). A task that failed stays FAILED while the worker lives
 * on, so the worker's process being alive says nothing about it; this does. One {@link HealthCheck} per connector:
 * {@link Verdict#FAILING} when the connector or a task is FAILED (with the first line of its trace and, if different,
 * its root cause); {@link Verdict#DEGRADED} when one is paused, stopped, unassigned or restarting; else
 * {@link Verdict#OK}.
 */
final class ConnectHealth {
    static final String COMPONENT = "connect";
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final Set<String> DEGRADED = Set.of("PAUSED", "STOPPED", "UNASSIGNED", "RESTARTING");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI rest;

    ConnectHealth(HttpClient http, URI rest) {
        this.http = http;
        this.rest = rest;
    }

    /** Asks the worker; an IOException when it does not answer. */
    List<HealthCheck> poll() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(rest.resolve("/connectors?expand=status"))
                .timeout(TIMEOUT).header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("Connect REST /connectors answered " + response.statusCode());
        }
        return checks(response.body());
    }

    /**
     * Asks the worker to restart the connector's failed instance and failed tasks ({@code POST
     * /connectors/<name>/restart?includeTasks=true&onlyFailed=true}): Kafka Connect leaves a failed task FAILED until
     * someone does (a sink task whose transactional producer was fenced when a broker died stays down otherwise).
     * True when the worker accepted.
     */
    boolean restartFailed(String connector) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        rest.resolve("/connectors/" + connector + "/restart?includeTasks=true&onlyFailed=true"))
                .timeout(TIMEOUT).header("Accept", "application/json").POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 || response.statusCode() == 202 || response.statusCode() == 204;
    }

    /**
     * The wait after the {@code n}-th restart in a row of one connector's failed tasks before the next: 30 s, doubling,
     * at most 10 min, so a task that fails again at once (a missing table) is not restarted in a loop.
     */
    static Duration restartBackoff(int n) {
        long seconds = 30L << Math.min(Math.max(n, 1) - 1, 5);
        return Duration.ofSeconds(Math.min(seconds, 600));
    }

    /** One check per connector of {@code GET /connectors?expand=status}, in name order. */
    static List<HealthCheck> checks(String expandedStatus) throws IOException {
        List<HealthCheck> checks = new ArrayList<>();
        var connectors = new java.util.TreeMap<String, JsonNode>();
        JSON.readTree(expandedStatus).properties().forEach(e -> connectors.put(e.getKey(), e.getValue().path("status")));
        for (Map.Entry<String, JsonNode> c : connectors.entrySet()) {
            checks.add(check(c.getKey(), c.getValue()));
        }
        return checks;
    }

    private static HealthCheck check(String name, JsonNode status) {
        String name0 = "connect " + name;
        JsonNode connector = status.path("connector");
        String connectorState = connector.path("state").asText("UNKNOWN");
        List<String> failed = new ArrayList<>();
        List<String> degraded = new ArrayList<>();
        if (connectorState.equals("FAILED")) {
            failed.add("connector FAILED: " + trace(connector.path("trace").asText("")));
        } else if (DEGRADED.contains(connectorState)) {
            degraded.add("connector " + connectorState);
        }
        int running = 0;
        JsonNode tasks = status.path("tasks");
        for (JsonNode task : tasks) {
            String state = task.path("state").asText("UNKNOWN");
            if (state.equals("FAILED")) {
                failed.add("task " + task.path("id").asInt() + " FAILED: " + trace(task.path("trace").asText("")));
            } else if (DEGRADED.contains(state)) {
                degraded.add("task " + task.path("id").asInt() + " " + state);
            } else if (state.equals("RUNNING")) {
                running++;
            }
        }
        String summary = connectorState + ", " + running + " of " + tasks.size() + (tasks.size() == 1 ? " task" : " tasks") + " RUNNING";
        if (!failed.isEmpty()) {
            return new HealthCheck(name0, COMPONENT, Verdict.FAILING, name0 + " failing: " + String.join("; ", failed));
        }
        if (!degraded.isEmpty()) {
            return new HealthCheck(name0, COMPONENT, Verdict.DEGRADED, name0 + " degraded: " + String.join("; ", degraded) + " (" + summary + ")");
        }
        return new HealthCheck(name0, COMPONENT, Verdict.OK, name0 + ": " + summary);
    }

    /** The trace's first line, and its root cause when that is another line. */
    static String trace(String trace) {
        String first = trace.lines().findFirst().orElse("(no trace)").trim();
        String cause = FlinkJobHealth.cause(trace);
        String line = first.endsWith(cause) ? first : first + " (root cause: " + cause + ")";
        return line.length() <= 400 ? line : line.substring(0, 399) + "…";
    }
}
