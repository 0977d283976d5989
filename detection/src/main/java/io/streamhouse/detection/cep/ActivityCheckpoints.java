package io.streamhouse.detection.cep;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Checkpoints that follow the records: one as soon as records moved since the last one (a source read an event, a timer
 * fired an alert), at most one per {@code spacing}, and none while nothing moves. The job's periodic checkpoints run at
 * a much longer interval beside them, for what changes without records (a watermark, a retention timer).
 *
 * <p>Why: with Kafka's transactions, an alert becomes visible when the checkpoint after it commits, so checkpoints
 * come every second while events flow. A checkpoint while nothing moves would cost the same (the heap backend
 * snapshots every key group of every state whether it changed or not, plus a Kafka transaction and an offset commit
 * at the broker) for nothing. Following the records keeps the latency and drops the idle work; after a quiet
 * spell the first event is checkpointed within a {@link #ROUND}, not up to a whole interval later.
 *
 * <p>Whether records moved comes from {@link RecordActivity} (Flink's record counters in this JVM); the checkpoints are
 * asked of the MiniCluster's REST API ({@code POST /jobs/<id>/checkpoints}), one at a time: the next is asked once the
 * last has completed or failed. A checkpoint that fails or cannot be asked is asked again after {@code spacing}.
 */
final class ActivityCheckpoints {
    /** How often the counters are read. */
    static final Duration ROUND = Duration.ofMillis(100);

    /** Asks Flink for a checkpoint, and how one that was asked ended. */
    interface Checkpointer {
        /** Asks for a checkpoint; the request's id. */
        String request() throws IOException, InterruptedException;

        /** Empty while the checkpoint runs; {@code true} once it completed, {@code false} if it failed. */
        Optional<Boolean> outcome(String requestId) throws IOException, InterruptedException;
    }

    /** What one round did. */
    enum Step { NOTHING, REQUESTED, COMPLETED, FAILED, WAITING }

    private final long spacingNanos;
    private final Checkpointer checkpointer;
    private long covered;
    private boolean requestedBefore;
    private long lastRequestNanos;
    private String pendingId;
    private long pendingTotal;
    private String lastError = "";

    ActivityCheckpoints(Duration spacing, Checkpointer checkpointer) {
        this.spacingNanos = spacing.toNanos();
        this.checkpointer = checkpointer;
    }

    /**
     * One round at {@code nowNanos} with the record counters at {@code total}: the outcome of the checkpoint in
     * flight, else a new request when the total differs from the one the last completed checkpoint was asked at and
     * {@code spacing} has passed since the last request.
     */
    Step round(long nowNanos, long total) throws InterruptedException {
        if (pendingId != null) {
            Optional<Boolean> outcome;
            try {
                outcome = checkpointer.outcome(pendingId);
            } catch (IOException e) {
                lastError = "could not ask how checkpoint request " + pendingId + " ended: " + e.getMessage();
                pendingId = null;
                return Step.FAILED;
            }
            if (outcome.isEmpty()) {
                return Step.WAITING;
            }
            pendingId = null;
            if (outcome.get()) {
                covered = pendingTotal;
                return Step.COMPLETED;
            }
            lastError = "a checkpoint asked for after records moved failed";
            return Step.FAILED;
        }
        if (total == covered || requestedBefore && nowNanos - lastRequestNanos < spacingNanos) {
            return Step.NOTHING;
        }
        requestedBefore = true;
        lastRequestNanos = nowNanos;
        try {
            pendingId = checkpointer.request();
            pendingTotal = total;
            return Step.REQUESTED;
        } catch (IOException e) {
            lastError = "could not ask for a checkpoint: " + e.getMessage();
            return Step.FAILED;
        }
    }

    /** Why the last {@link Step#FAILED} round failed. */
    String lastError() {
        return lastError;
    }

    /**
     * Runs rounds every {@link #ROUND} on a daemon thread until the JVM ends, reading {@code total}. Failures are
     * printed to {@code out}, once per run of failures.
     */
    void start(LongSupplier total, PrintStream out) {
        Thread thread = new Thread(() -> {
            boolean failing = false;
            try {
                while (true) {
                    Step step = round(System.nanoTime(), total.getAsLong());
                    if (step == Step.FAILED && !failing) {
                        out.println(Instant.now() + " [streamhouse-cep] " + lastError + " (asked again in "
                                + Duration.ofNanos(spacingNanos) + ")");
                    }
                    if (step == Step.FAILED || step == Step.COMPLETED) {
                        failing = step == Step.FAILED;
                    }
                    Thread.sleep(ROUND.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "streamhouse-cep-activity-checkpoints");
        thread.setDaemon(true);
        thread.start();
    }

    /** Asks the REST API of the Flink cluster at {@code rest} for checkpoints of job {@code jobId}. */
    static Checkpointer rest(URI rest, String jobId) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        ObjectMapper json = new ObjectMapper();
        URI checkpoints = rest.resolve("/jobs/" + jobId + "/checkpoints");
        return new Checkpointer() {
            @Override
            public String request() throws IOException, InterruptedException {
                JsonNode answer = send(HttpRequest.newBuilder(checkpoints)
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json"));
                String id = answer.path("request-id").asText("");
                if (id.isEmpty()) {
                    throw new IOException("no request-id in " + answer);
                }
                return id;
            }

            @Override
            public Optional<Boolean> outcome(String requestId) throws IOException, InterruptedException {
                JsonNode answer = send(HttpRequest.newBuilder(URI.create(checkpoints + "/" + requestId)).GET());
                if (!"COMPLETED".equals(answer.path("status").path("id").asText())) {
                    return Optional.empty();
                }
                return Optional.of(!answer.path("operation").has("failure-cause"));
            }

            private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
                HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() / 100 != 2) {
                    throw new IOException("HTTP " + response.statusCode() + " from " + response.uri() + ": " + response.body());
                }
                return json.readTree(response.body());
            }
        };
    }
}
