package io.streamhouse.flinkcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A JobManager's REST API, with {@code java.net.http} only: upload a job's jar ({@code POST /jars/upload}, multipart),
 * run it ({@code POST /jars/<id>/run}), read a job's state, checkpoints and placement, cancel it or stop it with a
 * savepoint. Every call is one request with a timeout; a non-2xx answer is an {@link IllegalStateException} that
 * carries Flink's answer (its {@code errors} list holds the cause, a failed {@code main} included). Thread-safe.
 */
public final class FlinkRestClient {
    /** A job the cluster does not know (yet, or any more). */
    public static final String MISSING = "MISSING";
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** Running a jar runs its {@code main} inside the JobManager: building the job graph takes a while. */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI rest;

    public FlinkRestClient(URI rest) {
        this(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build(), rest);
    }

    public FlinkRestClient(HttpClient http, URI rest) {
        this.http = http;
        this.rest = rest;
    }

    public URI rest() {
        return rest;
    }

    /**
     * {@code <job id> <rest url>}: what the MiniCluster child's ready line gives the launcher's job health reader, so
     * the same reader polls a job on this cluster.
     */
    public String endpointOf(String jobId) {
        return jobId + " " + rest;
    }

    /** What to run: the jar's entry class, its arguments, the parallelism, and a snapshot to start from if any. */
    public record Submission(String entryClass, List<String> programArgs, int parallelism, Optional<String> restoreFrom,
                             boolean allowNonRestoredState) {
        public Submission {
            programArgs = List.copyOf(programArgs);
            if (parallelism < 1) {
                throw new IllegalArgumentException("parallelism must be at least 1, was " + parallelism);
            }
        }

        public static Submission of(String entryClass, List<String> programArgs, int parallelism) {
            return new Submission(entryClass, programArgs, parallelism, Optional.empty(), false);
        }

        /** The body of {@code POST /jars/<id>/run}. */
        String json() {
            ObjectNode body = JSON.createObjectNode();
            body.put("entryClass", entryClass);
            programArgs.forEach(body.putArray("programArgsList")::add);
            body.put("parallelism", parallelism);
            restoreFrom.ifPresent(p -> body.put("savepointPath", p));
            body.put("allowNonRestoredState", allowNonRestoredState);
            return body.toString();
        }
    }

    /** Uploads {@code jar}; returns the id the cluster gives it (the file name it stored it under). */
    public String upload(Path jar) {
        String boundary = "streamhouse-" + UUID.randomUUID();
        String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
        String tail = "\r\n--" + boundary + "--\r\n";
        HttpRequest.BodyPublisher body;
        try {
            body = HttpRequest.BodyPublishers.concat(
                    HttpRequest.BodyPublishers.ofString(head, StandardCharsets.UTF_8),
                    HttpRequest.BodyPublishers.ofFile(jar),
                    HttpRequest.BodyPublishers.ofString(tail, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + jar, e);
        }
        JsonNode answer = send(HttpRequest.newBuilder(rest.resolve("/jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary).POST(body), REQUEST_TIMEOUT);
        String stored = answer.path("filename").asText();
        if (stored.isEmpty()) {
            throw new IllegalStateException("Flink stored no file for " + jar + ": " + answer);
        }
        return Path.of(stored).getFileName().toString();
    }

    /** Runs an uploaded jar; returns the job id once the job is submitted (not yet running). */
    public String run(String jarId, Submission submission) {
        JsonNode answer = send(HttpRequest.newBuilder(rest.resolve("/jars/" + jarId + "/run"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(submission.json())), RUN_TIMEOUT);
        String jobId = answer.path("jobid").asText();
        if (jobId.isEmpty()) {
            throw new IllegalStateException("Flink ran " + jarId + " but named no job: " + answer);
        }
        return jobId;
    }

    /** The job's state ({@code RUNNING}, {@code RESTARTING}, {@code FAILED}, ...), or {@link #MISSING}. */
    public String state(String jobId) {
        return job(jobId).map(j -> j.path("state").asText(MISSING)).orElse(MISSING);
    }

    /** {@code GET /jobs/<id>}, or empty when the cluster does not know the job. */
    public Optional<JsonNode> job(String jobId) {
        HttpResponse<String> r = exchange(HttpRequest.newBuilder(rest.resolve("/jobs/" + jobId)).GET(), REQUEST_TIMEOUT);
        if (r.statusCode() == 404) {
            return Optional.empty();
        }
        return Optional.of(parse(r, "/jobs/" + jobId));
    }

    /** Whether every vertex of the job has all its subtasks running (the job's own state says RUNNING earlier). */
    public boolean allTasksRunning(String jobId) {
        return job(jobId).map(FlinkRestClient::allTasksRunning).orElse(false);
    }

    static boolean allTasksRunning(JsonNode job) {
        if (!job.path("state").asText().equals("RUNNING") || job.path("vertices").isEmpty()) {
            return false;
        }
        for (JsonNode v : job.path("vertices")) {
            if (v.path("tasks").path("RUNNING").asInt() != v.path("parallelism").asInt()) {
                return false;
            }
        }
        return true;
    }

    /** Checkpoint counts and the latest restore, from {@code GET /jobs/<id>/checkpoints}. */
    public record Checkpoints(long completed, long restored, Optional<Long> lastRestoredId) {
    }

    public Checkpoints checkpoints(String jobId) {
        JsonNode c = get("/jobs/" + jobId + "/checkpoints");
        JsonNode restored = c.path("latest").path("restored");
        return new Checkpoints(c.path("counts").path("completed").asLong(), c.path("counts").path("restored").asLong(),
                restored.isMissingNode() || restored.isNull() ? Optional.empty() : Optional.of(restored.path("id").asLong()));
    }

    /** The resource ids of the TaskManagers registered with the JobManager. */
    public Set<String> taskManagers() {
        Set<String> ids = new TreeSet<>();
        get("/taskmanagers").path("taskmanagers").forEach(tm -> ids.add(tm.path("id").asText()));
        return ids;
    }

    /** The TaskManagers that run at least one subtask of the job, over all its vertices. */
    public Set<String> placement(String jobId) {
        Set<String> ids = new TreeSet<>();
        for (JsonNode v : job(jobId).map(j -> j.path("vertices")).orElse(JSON.createArrayNode())) {
            JsonNode tms = get("/jobs/" + jobId + "/vertices/" + v.path("id").asText() + "/taskmanagers");
            tms.path("taskmanagers").forEach(tm -> ids.add(tm.path("taskmanager-id").asText()));
        }
        return ids;
    }

    /** Cancels the job ({@code PATCH /jobs/<id>?mode=cancel}); its latest checkpoint is retained. */
    public void cancel(String jobId) {
        HttpResponse<String> r = exchange(HttpRequest.newBuilder(rest.resolve("/jobs/" + jobId + "?mode=cancel"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody()), REQUEST_TIMEOUT);
        if (r.statusCode() != 202 && r.statusCode() != 200) {
            throw new IllegalStateException("Flink refused to cancel " + jobId + ": " + r.statusCode() + " " + r.body());
        }
    }

    /**
     * Starts a stop with a savepoint into {@code targetDirectory} ({@code POST /jobs/<id>/stop}); returns the trigger id
     * to follow with {@link #savepointStatus}.
     */
    public String stopWithSavepoint(String jobId, String targetDirectory) {
        ObjectNode body = JSON.createObjectNode().put("targetDirectory", targetDirectory).put("drain", false);
        return send(HttpRequest.newBuilder(rest.resolve("/jobs/" + jobId + "/stop"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())), REQUEST_TIMEOUT).path("request-id").asText();
    }

    /** The savepoint's path once the stop completed, empty while in progress; a failed one throws with its cause. */
    public Optional<String> savepointStatus(String jobId, String triggerId) {
        JsonNode s = get("/jobs/" + jobId + "/savepoints/" + triggerId);
        if (!s.path("status").path("id").asText().equals("COMPLETED")) {
            return Optional.empty();
        }
        JsonNode op = s.path("operation");
        if (op.has("failure-cause")) {
            throw new IllegalStateException("savepoint of " + jobId + " failed: " + op.path("failure-cause"));
        }
        return Optional.of(op.path("location").asText());
    }

    private JsonNode get(String path) {
        return send(HttpRequest.newBuilder(rest.resolve(path)).GET(), REQUEST_TIMEOUT);
    }

    private JsonNode send(HttpRequest.Builder request, Duration timeout) {
        HttpResponse<String> r = exchange(request, timeout);
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("Flink REST " + r.request().method() + " " + r.request().uri().getPath()
                    + " answered " + r.statusCode() + ": " + r.body());
        }
        return parse(r, r.request().uri().getPath());
    }

    private HttpResponse<String> exchange(HttpRequest.Builder request, Duration timeout) {
        HttpRequest built = request.timeout(timeout).header("Accept", "application/json").build();
        try {
            return http.send(built, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("Flink REST " + built.method() + " " + built.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted calling Flink REST " + built.uri(), e);
        }
    }

    private static JsonNode parse(HttpResponse<String> r, String path) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException("Flink REST " + path + " answered no JSON: " + r.body(), e);
        }
    }
}
