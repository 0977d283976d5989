package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where a connector's tasks run, from a worker's {@code GET /connectors/<name>/status} ({@code worker_id} is the
 * worker's advertised {@code host:port}), and which supervised worker that is (its component's endpoint in
 * {@code status.json} is its REST URL). The status is what the group last wrote: right after a kill -9 it still names
 * the dead worker until the group has rebalanced.
 */
final class ConnectWorkers {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One task as the status reports it. */
    record Task(int id, String state, String workerId) {
    }

    /** The tasks of a {@code /connectors/<name>/status} answer, in id order. */
    static List<Task> tasks(String statusJson) throws IOException {
        List<Task> tasks = new ArrayList<>();
        for (JsonNode t : JSON.readTree(statusJson).path("tasks")) {
            tasks.add(new Task(t.path("id").asInt(), t.path("state").asText("UNKNOWN"), t.path("worker_id").asText("")));
        }
        tasks.sort(Comparator.comparingInt(Task::id));
        return tasks;
    }

    /**
     * The worker running the most of {@code tasks} that are RUNNING (of equals, the one running the lowest task id).
     *
     * @throws IllegalStateException when no task runs
     */
    static String busiestWorker(List<Task> tasks) {
        Map<String, Long> running = tasks.stream().filter(t -> t.state().equals("RUNNING"))
                .collect(Collectors.groupingBy(Task::workerId, Collectors.counting()));
        return tasks.stream().filter(t -> t.state().equals("RUNNING")).map(Task::workerId)
                .max(Comparator.comparingLong(running::get)) // max keeps the first of equals
                .orElseThrow(() -> new IllegalStateException("no task is RUNNING: " + tasks));
    }

    /**
     * The component whose endpoint (a REST URL) is the worker {@code workerId} ({@code host:port}); loopback names
     * count as one host.
     */
    static Optional<String> componentOf(String workerId, Map<String, String> endpoints) {
        Function<String, String> norm = a -> a.replace("localhost", "127.0.0.1");
        return endpoints.entrySet().stream().filter(e -> {
            try {
                URI u = URI.create(e.getValue().trim());
                return u.getHost() != null && norm.apply(u.getHost() + ":" + u.getPort()).equals(norm.apply(workerId));
            } catch (IllegalArgumentException notAUrl) {
                return false;
            }
        }).map(Map.Entry::getKey).sorted().findFirst();
    }

    /** Every task RUNNING. */
    static boolean allRunning(List<Task> tasks) {
        return !tasks.isEmpty() && tasks.stream().allMatch(t -> t.state().equals("RUNNING"));
    }

    /** {@code GET <rest>/connectors/<connector>/status}, or empty when the worker did not answer 200 within 3 s. */
    static Optional<List<Task>> read(HttpClient http, URI rest, String connector) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(rest.resolve("/connectors/" + connector + "/status"))
                    .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? Optional.of(tasks(r.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private ConnectWorkers() {
    }
}
