package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.control.HealthCheck;
import io.streamhouse.control.HealthCheck.Verdict;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * How the CEP job inside the {@code cep} child is doing, as the REST API of its MiniCluster says: the job's state
 * ({@code /jobs/overview}), its restarts ({@code numRestarts}) and the failures behind them ({@code /jobs/<id>/exceptions},
 * whose history has the time and trace of each). The child's process stays alive while Flink restarts the job inside
 * it, so this is what tells a crash loop from a running job. Two small GETs per poll, three after a failure; nothing is cached between polls
 * but the REST URL and job id, which the child's ready line gives ({@code <job id> <rest url>}).
 *
 * <p>Verdict: {@link Verdict#FAILING} when the job is failed, cancelled or suspended, or failed at least
 * {@value #LOOP_RESTARTS} times within {@link #LOOP_WINDOW} (a loop: Flink's restart backoff grows, so the count in
 * one minute alone falls while the loop goes on) or missing from the cluster; {@link Verdict#DEGRADED} while it is not running yet, restarting,
 * or failed within the window fewer times; otherwise {@link Verdict#OK}.
 */
final class FlinkJobHealth {
    static final String CHECK = "cep job";
    static final int LOOP_RESTARTS = 3;
    static final Duration LOOP_WINDOW = Duration.ofMinutes(10);
    /** Per request while polling: a poll that waits longer is late for the next one. */
    static final Duration POLL_TIMEOUT = Duration.ofSeconds(3);
    private static final Set<String> DOWN = Set.of("FAILED", "FAILING", "CANCELED", "CANCELLING", "SUSPENDED", "MISSING");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI rest;
    private final String jobId;
    private final Duration timeout;

    FlinkJobHealth(HttpClient http, URI rest, String jobId, Duration timeout) {
        this.http = http;
        this.rest = rest;
        this.jobId = jobId;
        this.timeout = timeout;
    }

    /** From the cep child's endpoint, {@code <job id> <rest url>}; empty for an endpoint without a URL. */
    static Optional<FlinkJobHealth> of(HttpClient http, String cepEndpoint, Duration timeout) {
        String[] parts = cepEndpoint.trim().split("\\s+");
        return parts.length < 2 ? Optional.empty() : Optional.of(new FlinkJobHealth(http, URI.create(parts[1]), parts[0], timeout));
    }

    /** The latest failure: when, and its root cause in one line. */
    record Failure(Instant at, String cause) {
    }

    /** What one poll found. */
    record Report(String state, long restarts, int restartsLastMinute, int restartsInWindow, Optional<Failure> lastFailure) {

        Verdict verdict() {
            if (DOWN.contains(state) || restartsInWindow >= LOOP_RESTARTS) {
                return Verdict.FAILING;
            }
            return !state.equals("RUNNING") || restartsInWindow > 0 ? Verdict.DEGRADED : Verdict.OK;
        }

        /** {@code cep job failing: RESTARTING, 5 restarts in the last minute (23 in all), last cause: ...}. */
        String line() {
            StringBuilder s = new StringBuilder(CHECK);
            Verdict verdict = verdict();
            s.append(verdict == Verdict.FAILING ? " failing: " : verdict == Verdict.DEGRADED ? " degraded: " : ": ").append(state);
            if (restartsLastMinute > 0) {
                s.append(", ").append(countOfRestarts(restartsLastMinute)).append(" in the last minute");
                if (restartsInWindow > restartsLastMinute) {
                    s.append(", ").append(restartsInWindow).append(" in the last ").append(LOOP_WINDOW.toMinutes()).append(" minutes");
                }
                s.append(" (").append(restarts).append(" in all)");
            } else if (restartsInWindow > 0) {
                s.append(", ").append(countOfRestarts(restartsInWindow)).append(" in the last ").append(LOOP_WINDOW.toMinutes())
                        .append(" minutes (").append(restarts).append(" in all)");
            } else {
                s.append(", ").append(countOfRestarts(restarts));
            }
            lastFailure.ifPresent(f -> s.append(", last cause: ").append(f.cause()).append(" (at ").append(f.at().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)).append(')'));
            return s.toString();
        }

        HealthCheck check() {
            return new HealthCheck(CHECK, CepProcess.COMPONENT, verdict(), line());
        }
    }

    private static String countOfRestarts(long n) {
        return n + (n == 1 ? " restart" : " restarts");
    }

    /**
     * Asks the MiniCluster; an IOException when it does not answer. The restart count is asked only when the exception
     * history has an entry: without a failure there was no restart, and a metric request makes Flink's REST server
     * fetch every metric of the job (most of what an idle job's health polls cost).
     */
    Report poll(Instant now) throws IOException, InterruptedException {
        String overview = get("/jobs/overview");
        if (!listed(overview, jobId)) {
            // Its exceptions would answer 404: the job is missing (a restarted JobManager of a session cluster knows
            // none), which the report says as such rather than as a REST API that did not answer.
            return report(jobId, overview, "{}", "[]", now);
        }
        String exceptions = get("/jobs/" + jobId + "/exceptions");
        String restarts = hasFailures(exceptions) ? get("/jobs/" + jobId + "/metrics?get=numRestarts") : "[]";
        return report(jobId, overview, exceptions, restarts, now);
    }

    /** Whether a {@code /jobs/overview} answer lists the job. */
    static boolean listed(String overview, String jobId) throws IOException {
        for (JsonNode job : JSON.readTree(overview).path("jobs")) {
            if (jobId.equals(job.path("jid").asText())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a {@code /jobs/<id>/exceptions} answer holds any failure. */
    static boolean hasFailures(String exceptions) throws IOException {
        return !JSON.readTree(exceptions).path("exceptionHistory").path("entries").isEmpty();
    }

    /** The report from the three answers: {@code /jobs/overview}, {@code /jobs/<id>/exceptions}, the job's {@code numRestarts}. */
    static Report report(String jobId, String overview, String exceptions, String restartsMetric, Instant now) throws IOException {
        String state = "MISSING"; // not among the cluster's jobs
        for (JsonNode job : JSON.readTree(overview).path("jobs")) {
            if (job.path("jid").asText().equals(jobId)) {
                state = job.path("state").asText();
            }
        }
        List<Instant> failures = new ArrayList<>();
        Optional<Failure> last = Optional.empty();
        for (JsonNode entry : JSON.readTree(exceptions).path("exceptionHistory").path("entries")) {
            Instant at = Instant.ofEpochMilli(entry.path("timestamp").asLong());
            failures.add(at);
            if (last.isEmpty() || at.isAfter(last.get().at())) {
                String trace = entry.path("stacktrace").asText(entry.path("exceptionName").asText());
                last = Optional.of(new Failure(at, cause(trace)));
            }
        }
        long restarts = failures.size();
        for (JsonNode metric : JSON.readTree(restartsMetric)) {
            if (metric.path("id").asText().equals("numRestarts")) {
                restarts = Math.max(restarts, (long) Double.parseDouble(metric.path("value").asText("0")));
            }
        }
        int lastMinute = (int) failures.stream().filter(at -> at.isAfter(now.minus(Duration.ofMinutes(1)))).count();
        int inWindow = (int) failures.stream().filter(at -> at.isAfter(now.minus(LOOP_WINDOW))).count();
        return new Report(state, restarts, lastMinute, inWindow, last);
    }

    /**
     * The root cause of a Java stack trace in one line: the last {@code Caused by:} (else the first line), its
     * exception class without the package, at most 200 characters.
     */
    static String cause(String trace) {
        String line = trace.lines().findFirst().orElse("").trim();
        for (String l : (Iterable<String>) trace.lines()::iterator) {
            if (l.startsWith("Caused by: ")) {
                line = l.substring("Caused by: ".length()).trim();
            }
        }
        int colon = line.indexOf(':');
        String type = colon < 0 ? line : line.substring(0, colon);
        if (type.matches("[\\w$.]+")) {
            line = type.substring(type.lastIndexOf('.') + 1) + line.substring(type.length());
        }
        return line.length() <= 200 ? line : line.substring(0, 199) + "…";
    }

    /** Facts dropped beyond a pattern's retention, summed over the subtasks of its {@code reconcile <pattern>} operator. */
    record Dropped(String pattern, String topic, long count) {
    }

    /** The reconcile operators' {@code droppedBeyondRetention} counters, from the job's vertices and their aggregated metrics. */
    List<Dropped> droppedBeyondRetention() throws IOException, InterruptedException {
        List<Dropped> all = new ArrayList<>();
        for (JsonNode vertex : JSON.readTree(get("/jobs/" + jobId)).path("vertices")) {
            if (!vertex.path("name").asText().contains("reconcile ")) {
                continue;
            }
            String path = "/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/subtasks/metrics";
            List<String> ids = droppedMetricIds(get(path));
            if (!ids.isEmpty()) {
                all.addAll(dropped(get(path + "?agg=sum&get=" + URLEncoder.encode(String.join(",", ids), StandardCharsets.UTF_8))));
            }
        }
        return all;
    }

    /** Of a vertex's aggregated metric names, those of the dropped counters. */
    static List<String> droppedMetricIds(String metricList) throws IOException {
        List<String> ids = new ArrayList<>();
        for (JsonNode m : JSON.readTree(metricList)) {
            if (m.path("id").asText().endsWith(".droppedBeyondRetention")) {
                ids.add(m.path("id").asText());
            }
        }
        return ids;
    }

    /**
     * {@code [{"id": "reconcile_cep-card-testing.topic.payments_transactions_requested.droppedBeyondRetention", "sum": 12.0}]}:
     * Flink's REST API shows each part of a metric's scope with dots and spaces as underscores.
     */
    static List<Dropped> dropped(String aggregated) throws IOException {
        List<Dropped> all = new ArrayList<>();
        for (JsonNode m : JSON.readTree(aggregated)) {
            String id = m.path("id").asText();
            int topicAt = id.indexOf(".topic.");
            if (topicAt < 0 || !id.endsWith(".droppedBeyondRetention")) {
                continue;
            }
            String operator = id.substring(0, topicAt);
            String pattern = operator.replaceFirst("^reconcile[ _]", "");
            String topic = topicNamed(id.substring(topicAt + ".topic.".length(), id.length() - ".droppedBeyondRetention".length()));
            all.add(new Dropped(pattern, topic, (long) m.path("sum").asDouble()));
        }
        return all;
    }

    /** The input topic a metric's scope shows as {@code shown} (dots as underscores), or {@code shown} if none matches. */
    static String topicNamed(String shown) {
        return Topics.eventTimeInputs().stream().map(Topic::name)
                .filter(name -> name.replace('.', '_').replace(' ', '_').equals(shown)).findFirst().orElse(shown);
    }

    /** {@code cep dropped beyond retention: card-testing 12 (payments.transactions.requested), ...}, or none. */
    static String droppedLine(List<Dropped> dropped) {
        var counted = new TreeMap<String, Dropped>();
        dropped.stream().filter(d -> d.count() > 0).forEach(d -> counted.put(d.pattern() + " " + d.topic(), d));
        if (counted.isEmpty()) {
            return "cep dropped beyond retention: none";
        }
        return "cep dropped beyond retention: " + String.join(", ", counted.values().stream()
                .map(d -> d.pattern() + " " + d.count() + " (" + d.topic() + ")").toList());
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(rest.resolve(path)).timeout(timeout).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("Flink REST " + path + " answered " + response.statusCode());
        }
        return response.body();
    }
}
