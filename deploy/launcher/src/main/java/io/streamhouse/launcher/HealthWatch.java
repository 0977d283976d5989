package io.streamhouse.launcher;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.HealthCheck;
import io.streamhouse.control.HealthCheck.Verdict;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.Supervisor;
import org.apache.kafka.clients.admin.Admin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Looks inside the running {@code cep} and {@code connect} children every {@link #INTERVAL} ({@link FlinkJobHealth},
 * {@link ConsumerLag}, {@link ConnectHealth}) and keeps what it found for {@code status.json}. A check that turns
 * degraded or failing, or recovers, is announced as one line; one that stays failing is announced again at most once
 * per {@link #REMINDER} while its line changes. One daemon thread; a poll that gets no answer makes its check
 * {@link Verdict#UNKNOWN} and never stops the watch. On a second daemon thread, at the same interval, {@link HealthDetails}
 * gathers the lag, freshness, lake and maintenance details, which are written to {@code status.json} and never announced.
 */
final class HealthWatch implements AutoCloseable {
    static final Duration INTERVAL = Duration.ofSeconds(5);
    static final Duration REMINDER = Duration.ofSeconds(60);
    /** The consumer group the launcher's job commits its offsets under (CepOptions' default). */
    static final String CEP_GROUP = "streamhouse-cep";

    private final Supervisor supervisor;
    private final Supplier<Admin> adminFactory;
    private final Consumer<String> announce;
    private final Runnable changed;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Map<String, Announced> announced = new HashMap<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "streamhouse-health-watch");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService detailScheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "streamhouse-health-details");
        t.setDaemon(true);
        return t;
    });
    private final java.util.function.Function<Supplier<Admin>, HealthDetails> detailsFactory;
    private HealthDetails healthDetails;
    private volatile List<HealthCheck> checks = List.of();
    private volatile Map<String, String> details = Map.of();
    private Admin admin;
    private volatile Supplier<Optional<String>> sessionJob = Optional::empty;
    /** Per connector: its restarts in a row, and the earliest moment of the next ({@link #restartFailed}). */
    private final Map<String, Integer> connectRestarts = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Instant> nextConnectRestart = new java.util.concurrent.ConcurrentHashMap<>();

    private record Announced(Verdict verdict, String line, Instant at) {
    }

    /**
     * @param adminFactory a Kafka admin for the CEP job's lag, made on the first poll; null leaves the lag out
     * @param announce     prints one line on the launcher's output
     * @param changed      runs when the checks changed (the launcher rewrites {@code status.json})
     */
    HealthWatch(Supervisor supervisor, Supplier<Admin> adminFactory, Consumer<String> announce, Runnable changed) {
        this(supervisor, adminFactory, announce, changed, null);
    }

    /**
     * @param detailsFactory makes the details' gatherer with this watch's one admin client; null gathers no details
     */
    HealthWatch(Supervisor supervisor, Supplier<Admin> adminFactory, Consumer<String> announce, Runnable changed,
                java.util.function.Function<Supplier<Admin>, HealthDetails> detailsFactory) {
        this.supervisor = supervisor;
        this.adminFactory = adminFactory;
        this.announce = announce;
        this.changed = changed;
        this.detailsFactory = detailsFactory;
    }

    /**
     * Where the CEP job runs when it runs on a Flink session cluster: {@code <job id> <rest url>} (it changes when the
     * job is submitted again); empty for the MiniCluster in the {@code cep} child, whose endpoint says it.
     */
    HealthWatch sessionJob(Supplier<Optional<String>> endpoint) {
        this.sessionJob = endpoint;
        return this;
    }

    HealthWatch start() {
        scheduler.scheduleWithFixedDelay(this::pollSafely, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        if (detailsFactory != null && adminFactory != null) {
            detailScheduler.scheduleWithFixedDelay(this::detailsSafely, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /** What the last poll found. */
    List<HealthCheck> checks() {
        return checks;
    }

    /** What the last details pass found ({@link HealthDetails#json}); empty before the first. */
    Map<String, String> details() {
        return details;
    }

    private synchronized Admin admin() {
        if (admin == null) {
            admin = adminFactory.get();
        }
        return admin;
    }

    private void detailsSafely() {
        try {
            if (healthDetails == null) {
                healthDetails = detailsFactory.apply(this::admin);
            }
            Map<String, String> found = healthDetails.poll(Instant.now());
            if (!found.equals(details)) {
                details = Map.copyOf(found);
                changed.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            System.err.println("health details: " + e);
        }
    }

    private void pollSafely() {
        try {
            poll(Instant.now());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            System.err.println("health watch: " + e);
        }
    }

    private void poll(Instant now) throws InterruptedException {
        List<HealthCheck> found = new ArrayList<>();
        Optional<SupervisedChild> cep = supervisor.child(CepProcess.COMPONENT);
        Optional<String> onSession = sessionJob.get();
        if (onSession.isPresent()) {
            // On a session cluster the job lives in the JobManager (the TaskManagers' own states are the supervisor's).
            cep = supervisor.child(io.streamhouse.flinkcluster.FlinkSessionCluster.JOBMANAGER);
        }
        if (cep.isPresent()) {
            found.add(cepJob(cep.get().status(), onSession.orElse(cep.get().status().endpoint()), cep.get().spec().name(), now));
            if (adminFactory != null) {
                found.add(cepLag());
            }
        }
        // Any running worker of the group answers for all its connectors: the first one running is asked.
        java.util.stream.Stream.of(1, 2, 3).map(io.streamhouse.connect.ConnectProcess::component).map(supervisor::child)
                .flatMap(Optional::stream).filter(c -> c.status().state() == ChildState.RUNNING).findFirst()
                .or(() -> supervisor.child(ConnectHealth.COMPONENT))
                .ifPresent(c -> found.addAll(connectors(c.status())));
        for (HealthCheck check : found) {
            Announced before = announced.get(check.name());
            Optional<String> line = announcement(before == null ? null : before.verdict(), before == null ? null : before.line(),
                    before == null ? null : before.at(), check, now);
            line.ifPresent(announce);
            if (line.isPresent()) {
                announced.put(check.name(), new Announced(check.verdict(), check.line(), now));
            } else if (before == null || before.verdict() != check.verdict()) {
                announced.put(check.name(), new Announced(check.verdict(), check.line(), before == null ? Instant.EPOCH : before.at()));
            }
        }
        if (!found.equals(checks)) {
            checks = List.copyOf(found);
            changed.run();
        }
    }

    private HealthCheck cepJob(ChildStatus cep, String endpoint, String component, Instant now) throws InterruptedException {
        if (cep.state() != ChildState.RUNNING) {
            return new HealthCheck(FlinkJobHealth.CHECK, component, Verdict.UNKNOWN,
                    FlinkJobHealth.CHECK + ": not asked (the " + component + " process is " + cep.state().label() + ")");
        }
        Optional<FlinkJobHealth> job = FlinkJobHealth.of(http, endpoint, FlinkJobHealth.POLL_TIMEOUT);
        if (job.isEmpty()) {
            return new HealthCheck(FlinkJobHealth.CHECK, component, Verdict.UNKNOWN,
                    FlinkJobHealth.CHECK + ": unknown (the " + component + " process gave no REST URL: '" + endpoint + "')");
        }
        try {
            HealthCheck check = job.get().poll(now).check();
            return component.equals(check.component()) ? check
                    : new HealthCheck(check.name(), component, check.verdict(), check.line());
        } catch (IOException e) {
            return new HealthCheck(FlinkJobHealth.CHECK, component, Verdict.UNKNOWN,
                    FlinkJobHealth.CHECK + ": unknown (Flink's REST API did not answer: " + e.getMessage() + ")");
        }
    }

    private HealthCheck cepLag() throws InterruptedException {
        try {
            return ConsumerLag.fetch(admin(), CEP_GROUP).check();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
            return new HealthCheck(ConsumerLag.CHECK, CepProcess.COMPONENT, Verdict.UNKNOWN,
                    ConsumerLag.CHECK + ": unknown (" + (e.getCause() != null ? e.getCause() : e) + ")");
        }
    }

    private List<HealthCheck> connectors(ChildStatus connect) {
        if (connect.state() != ChildState.RUNNING || connect.endpoint().isEmpty()) {
            return List.of();
        }
        try {
            ConnectHealth worker = new ConnectHealth(http, URI.create(connect.endpoint()));
            List<HealthCheck> checks = worker.poll();
            restartFailed(worker, checks, Instant.now());
            return checks;
        } catch (IOException e) {
            return List.of(new HealthCheck("connect", ConnectHealth.COMPONENT, Verdict.UNKNOWN,
                    "connect: unknown (its REST API did not answer: " + e.getMessage() + ")"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /**
     * A connector failing is restarted (its failed instance and tasks), at most once per
     * {@link ConnectHealth#restartBackoff} of its restarts in a row; one that is OK again starts the count anew. The
     * check still says failing until the worker reports the task running.
     */
    private void restartFailed(ConnectHealth worker, List<HealthCheck> checks, Instant now) throws IOException, InterruptedException {
        for (HealthCheck check : checks) {
            String connector = check.name().substring("connect ".length());
            if (check.verdict() == Verdict.OK) {
                connectRestarts.remove(connector);
                nextConnectRestart.remove(connector);
            } else if (check.verdict() == Verdict.FAILING && !now.isBefore(nextConnectRestart.getOrDefault(connector, Instant.EPOCH))) {
                int n = connectRestarts.merge(connector, 1, Integer::sum);
                nextConnectRestart.put(connector, now.plus(ConnectHealth.restartBackoff(n)));
                boolean accepted = worker.restartFailed(connector);
                announce.accept(check.name() + ": " + (accepted ? "restarting" : "asked to restart (refused)")
                        + " its failed tasks (restart " + n + " in a row; Kafka Connect does not restart a failed task by itself)");
            }
        }
    }

    /**
     * The line to print for {@code now}, given what was announced before for the same check (nulls: nothing yet):
     * a check turning degraded or failing, one recovering from either, and one still failing with a changed line
     * once {@link #REMINDER} has passed since its last announcement. Unknown is never announced: the component's own
     * state, which the supervisor prints, says why.
     */
    static Optional<String> announcement(Verdict before, String beforeLine, Instant beforeAt, HealthCheck now, Instant at) {
        boolean bad = now.verdict() == Verdict.DEGRADED || now.verdict() == Verdict.FAILING;
        boolean wasBad = before == Verdict.DEGRADED || before == Verdict.FAILING;
        if (now.verdict() == Verdict.UNKNOWN) {
            return Optional.empty();
        }
        if (before != now.verdict() && (bad || wasBad)) {
            return Optional.of(now.line());
        }
        if (now.verdict() == Verdict.FAILING && !now.line().equals(beforeLine) && beforeAt != null
                && !at.isBefore(beforeAt.plus(REMINDER))) {
            return Optional.of(now.line());
        }
        return Optional.empty();
    }

    /** The worst verdict among the checks of {@code component}, if any check of it is degraded or failing. */
    static Optional<Verdict> worst(List<HealthCheck> checks, String component) {
        return checks.stream().filter(c -> c.component().equals(component))
                .map(HealthCheck::verdict).filter(v -> v == Verdict.DEGRADED || v == Verdict.FAILING)
                .max(Enum::compareTo);
    }

    /**
     * For {@code status}: the reconcile operators' dropped counters, asked of the job's REST API now; a longer wait than
     * a poll's, since a restarting job's REST API can take seconds to answer.
     */
    static String droppedLine(String cepEndpoint) {
        Optional<FlinkJobHealth> job = FlinkJobHealth.of(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(),
                cepEndpoint, Duration.ofSeconds(10));
        if (job.isEmpty()) {
            return "cep dropped beyond retention: unknown (the cep process gave no REST URL)";
        }
        try {
            return FlinkJobHealth.droppedLine(job.get().droppedBeyondRetention());
        } catch (IOException e) {
            return "cep dropped beyond retention: unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "cep dropped beyond retention: unknown (interrupted)";
        }
    }

    /** {@code status}'s exit code with the checks counted: 4 if one is failing, at least 1 if one is degraded. */
    static int exitCode(int components, List<HealthCheck> checks) {
        if (checks.stream().anyMatch(c -> c.verdict() == Verdict.FAILING)) {
            return 4;
        }
        return checks.stream().anyMatch(c -> c.verdict() == Verdict.DEGRADED) ? Math.max(components, 1) : components;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        detailScheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
            detailScheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (healthDetails != null) {
            healthDetails.close();
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
    }
}
