package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.replay.Endpoints;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CEP job on a Flink session cluster, through the JobManager's REST API: its state, its checkpoints and where its
 * subtasks run. The {@code flink-jobmanager} component's endpoint is {@code <job id> <rest url>}, or the REST URL
 * alone, and then the job is the one job of the session cluster that has not ended ({@code GET /jobs}). A few GETs
 * with the JDK's client, so the drill does not carry Flink's runtime on its classpath.
 */
record FlinkJob(String jobId, URI rest) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ENDPOINT = Pattern.compile("([0-9a-f]{32})\\s+(https?://\\S+)");

    private static final Set<String> ENDED = Set.of("FINISHED", "CANCELED", "FAILED", "SUSPENDED");

    /**
     * The job of the JobManager whose endpoint is {@code endpoint}: {@code <job id> <rest url>}, or a REST URL and the
     * one job it runs.
     *
     * @throws Endpoints.EnvironmentException when neither says which job
     */
    static FlinkJob locate(HttpClient http, String endpoint) {
        String e = endpoint == null ? "" : endpoint.trim();
        if (!e.matches("https?://\\S+")) {
            return fromEndpoint(e);
        }
        URI rest = URI.create(e.endsWith("/") ? e.substring(0, e.length() - 1) : e);
        try {
            String jobs = new FlinkJob("", rest).get(http, "/jobs");
            return new FlinkJob(activeJob(jobs).orElseThrow(() -> new Endpoints.EnvironmentException(
                    "the Flink session cluster at " + rest + " runs not exactly one job: " + jobs)), rest);
        } catch (IOException unanswered) {
            throw new Endpoints.EnvironmentException("the JobManager at " + rest + " did not answer GET /jobs: " + unanswered.getMessage());
        }
    }

    /** The one job of a {@code GET /jobs} answer that has not ended; empty when none or several. */
    static Optional<String> activeJob(String jobsJson) throws IOException {
        List<String> active = new ArrayList<>();
        for (JsonNode j : JSON.readTree(jobsJson).path("jobs")) {
            if (!ENDED.contains(j.path("status").asText())) {
                active.add(j.path("id").asText());
            }
        }
        return active.size() == 1 ? Optional.of(active.get(0)) : Optional.empty();
    }

    /** @throws Endpoints.EnvironmentException when the endpoint is not {@code <job id> <rest url>} */
    static FlinkJob fromEndpoint(String endpoint) {
        Matcher m = ENDPOINT.matcher(endpoint == null ? "" : endpoint.trim());
        if (!m.matches()) {
            throw new Endpoints.EnvironmentException("the flink-jobmanager's endpoint in status.json is '" + endpoint
                    + "', not '<job id> <rest url>': no CEP job submitted to the session cluster yet?");
        }
        String url = m.group(2);
        return new FlinkJob(m.group(1), URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url));
    }

    /**
     * What the drill reads of the job at one moment.
     *
     * @param allRunning      the job RUNNING with every subtask of every vertex RUNNING
     * @param restartingAt    when the job last entered RESTARTING (epoch ms), 0 if never
     * @param completed       checkpoints completed
     * @param restored        restores from a checkpoint
     * @param latestCompleted the id of the latest completed checkpoint
     * @param latestRestored  the id of the checkpoint the job last restored from
     */
    record State(String state, boolean allRunning, long restartingAt, long completed, long restored, Long latestCompleted,
                 Long latestRestored) {
    }

    /** The job's state from {@code GET /jobs/<id>} and {@code GET /jobs/<id>/checkpoints}' answers. */
    static State state(String jobJson, String checkpointsJson) throws IOException {
        JsonNode job = JSON.readTree(jobJson);
        JsonNode cp = JSON.readTree(checkpointsJson);
        boolean all = job.path("state").asText().equals("RUNNING") && !job.path("vertices").isEmpty();
        for (JsonNode v : job.path("vertices")) {
            all &= v.path("tasks").path("RUNNING").asInt() == v.path("parallelism").asInt();
        }
        return new State(job.path("state").asText("UNKNOWN"), all, job.path("timestamps").path("RESTARTING").asLong(0),
                cp.path("counts").path("completed").asLong(), cp.path("counts").path("restored").asLong(),
                id(cp.path("latest").path("completed")), id(cp.path("latest").path("restored")));
    }

    private static Long id(JsonNode checkpoint) {
        return checkpoint.isMissingNode() || checkpoint.isNull() || !checkpoint.has("id") ? null : checkpoint.path("id").asLong();
    }

    /**
     * Recovered from a fault at {@code faultAt}, {@code before} being the state read just before it: every subtask
     * running again, and the job went through a restart since (a restore more, or RESTARTING after the fault); right
     * after a kill the JobManager still reports RUNNING until it notices the TaskManager gone.
     */
    static boolean recovered(State before, State now, long faultAt) {
        return now.allRunning() && (now.restored() > before.restored() || now.restartingAt() >= faultAt);
    }

    /** {@code null} when the JobManager did not answer. */
    State read(HttpClient http) {
        try {
            return state(get(http, "/jobs/" + jobId), get(http, "/jobs/" + jobId + "/checkpoints"));
        } catch (IOException e) {
            return null;
        }
    }

    /** The TaskManagers (resource ids) that run at least one subtask of the job; empty when the JobManager did not answer. */
    Set<String> placement(HttpClient http) {
        Set<String> ids = new TreeSet<>();
        try {
            for (JsonNode v : JSON.readTree(get(http, "/jobs/" + jobId)).path("vertices")) {
                JSON.readTree(get(http, "/jobs/" + jobId + "/vertices/" + v.path("id").asText() + "/taskmanagers"))
                        .path("taskmanagers").forEach(tm -> ids.add(tm.path("taskmanager-id").asText()));
            }
        } catch (IOException e) {
            return Set.of();
        }
        return ids;
    }

    private String get(HttpClient http, String path) throws IOException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(rest.resolve(path)).timeout(Duration.ofSeconds(3)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("GET " + path + " answered " + r.statusCode());
            }
            return r.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
