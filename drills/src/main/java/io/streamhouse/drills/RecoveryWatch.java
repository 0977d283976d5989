package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import org.apache.kafka.clients.admin.Admin;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Recovery, measured from the fault and polled every 100 ms until {@code --recovery-timeout}: until the faulted
 * component serves again, until the first decided authorize, until the lag of the groups it feeds is back under the
 * bound; with several api instances, until a key the killed one owned answers through a survivor. Runs beside the
 * load, so a recovery inside the load is timed when it happens.
 */
final class RecoveryWatch {
    /**
     * @param componentBackAfterMs the faulted component serving again: the api's readiness 200, else the supervisor
     *                             reporting it running in a new process (the broker: the restart answered)
     * @param lagGroups            the consumer groups whose lag is watched: the ones the faulted component feeds
     */
    record Recovery(long faultAtEpochMs, List<String> faultAnswers, Long componentBackAfterMs, Long firstDecidedAnswerAfterMs,
                    Long lagNormalAfterMs, long lagBound, List<String> lagGroups, Long answeringAgainAfterMs,
                    String answeringAgainMeans, Answering answering) {
    }

    /**
     * kill-api with more than one api instance: lookups of {@code key} (a key {@code killed} owned before the fault)
     * through {@code through}, polled every 100 ms from the fault ({@link AnsweringAgain}).
     */
    record Answering(String killed, String through, String lookup, AnsweringAgain.Result result, String note) {
    }

    /** What {@code answeringAgainAfterMs} is, in the report: the figure the 10 s goal of issue #22 is about. */
    static final String ONE_INSTANCE_MEANS = "the api's /q/health/ready 200 again (one instance: nothing else answers while it is down)";
    static final String INSTANCES_MEANS = "a lookup of a key the killed instance owned answered 200 through a surviving instance";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final Scenario scenario;
    private final Path data;
    private final URI api;
    private final String opsToken;
    private final int recoveryTimeout;
    private final long lagBound;
    private final PrintStream log;
    /** A cluster scenario's target, which says when the cluster serves again and when the killed member rejoined. */
    private final ClusterTarget target;

    RecoveryWatch(HttpClient http, Scenario scenario, Path data, URI api, String opsToken, int recoveryTimeout, long lagBound,
                  PrintStream log, ClusterTarget target) {
        this.target = target;
        this.http = http;
        this.scenario = scenario;
        this.data = data;
        this.api = api;
        this.opsToken = opsToken;
        this.recoveryTimeout = recoveryTimeout;
        this.lagBound = lagBound;
        this.log = log;
    }

    /** The component serving again, then the watched groups' lag under the bound; {@code answeringWatch} joined at the end. */
    Recovery watch(Admin admin, List<String> groups, Fault fault, ChildStatus before, Map<String, DrillChecks.Answer> answers,
                   CompletableFuture<Answering> answeringWatch) {
        long faultAt = fault.faultAt;
        long deadline = faultAt + recoveryTimeout * 1000L;
        Long back = null, lagNormal = null;
        boolean rejoined = target == null;
        String faulted = target != null ? target.component() : scenario.component;
        try {
            fault.down.await(recoveryTimeout, TimeUnit.SECONDS);
            while (System.currentTimeMillis() < deadline && (back == null || lagNormal == null || !rejoined) && fault.error == null) {
                if (back == null && serving(fault, before)) {
                    back = System.currentTimeMillis() - faultAt;
                    log.println("  " + (target != null ? "without " + faulted + ", " + target.figures().servingAgainMeans()
                            + ": " : faulted + " serving again ") + back + " ms after the fault");
                }
                if (back != null && !rejoined && target.rejoined(faultAt)) {
                    rejoined = true;
                    log.println("  " + target.figures().rejoinedMeans() + " " + target.figures().rejoinedAfterMs() + " ms after the fault");
                }
                if (back != null && lagNormal == null && groups.stream().allMatch(g -> DrillSteps.lag(admin, g) <= lagBound)) {
                    lagNormal = System.currentTimeMillis() - faultAt;
                    log.println("  lag of " + groups + " back under " + lagBound + " " + lagNormal + " ms after the fault");
                }
                TimeUnit.MILLISECONDS.sleep(100); // polling interval of a bounded watch
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Sent once the component was down: a stop takes seconds, and the api answers until it has stopped.
        long downAt = fault.downAt > 0 ? fault.downAt : faultAt;
        Long firstDecided = answers.values().stream().filter(a -> a.sentAtMillis() >= downAt && a.decided())
                .map(a -> a.answeredAtMillis() - faultAt).min(Long::compare).orElse(null);
        Answering answering = answeringWatch == null ? null : answeringWatch.join();
        Long answeringAgain = answering != null ? answering.result().answeringAgainAfterMs() : scenario == Scenario.KILL_API ? back : null;
        String means = answering != null ? INSTANCES_MEANS : scenario == Scenario.KILL_API ? ONE_INSTANCE_MEANS : null;
        return new Recovery(faultAt, fault.answers(), back, firstDecided, lagNormal, lagBound, groups, answeringAgain, means, answering);
    }

    /**
     * A lookup path ({@code /v1/parcels/{id}} or {@code /v1/vehicles/{id}}) of a key {@code owner} serves fresh, found
     * by looking up, through {@code through}, the parcels and vehicles of the events ingest accepted so far (at most
     * 40 lookups, 10 s). Empty when none was found: the drill then reports no answering-again figure, and says why.
     */
    Optional<String> ownedLookup(List<GeneratedEvent> sent, Map<String, Integer> statuses, ApiInstances.Instance owner,
                                 ApiInstances.Instance through) {
        LinkedHashSet<String> paths = new LinkedHashSet<>();
        for (GeneratedEvent e : sent) {
            Integer st = statuses.get(e.eventId());
            if (st == null || st < 200 || st >= 300) {
                continue;
            }
            if (e.value() instanceof ParcelScanned p) {
                paths.add("/v1/parcels/" + URLEncoder.encode(p.getParcelId(), StandardCharsets.UTF_8));
            } else if (e.value() instanceof VehicleTelemetry t) {
                paths.add("/v1/vehicles/" + URLEncoder.encode(t.getVehicleId(), StandardCharsets.UTF_8));
            }
        }
        Map<String, ApiInstances.Served> served = new LinkedHashMap<>();
        long until = System.currentTimeMillis() + 10_000;
        for (String path : paths) {
            if (served.size() >= 40 || System.currentTimeMillis() > until) {
                break;
            }
            AnsweringAgain.Poll p = lookup(through.url().resolve(path));
            if (p.httpStatus() == 200) {
                served.put(path, new ApiInstances.Served(p.servedBy(), p.stale()));
                if (ApiInstances.firstOwnedBy(served, owner).isPresent()) {
                    break;
                }
            }
        }
        Optional<String> found = ApiInstances.firstOwnedBy(served, owner);
        log.println("  " + found.map(f -> "key owned by " + owner.component() + " (" + owner.address() + "): " + f + ", looked up through "
                + through.component() + " (" + through.address() + ")").orElse("no key owned by " + owner.component() + " among "
                + served.size() + " looked up through " + through.component() + ": no answering-again figure"));
        return found;
    }

    /** One lookup with the ops token: its status and, on a 200, {@code meta.freshness}'s stale and servedBy. */
    private AnsweringAgain.Poll lookup(URI uri) {
        long sent = System.currentTimeMillis();
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2))
                    .header("Authorization", "Bearer " + opsToken).GET().build(), HttpResponse.BodyHandlers.ofString());
            long at = System.currentTimeMillis();
            if (r.statusCode() != 200) {
                return new AnsweringAgain.Poll(sent, at, r.statusCode(), false, null);
            }
            JsonNode freshness = JSON.readTree(r.body()).path("meta").path("freshness");
            return new AnsweringAgain.Poll(sent, at, 200, freshness.path("stale").asBoolean(false), freshness.path("servedBy").asText(null));
        } catch (IOException e) {
            return new AnsweringAgain.Poll(sent, System.currentTimeMillis(), 0, false, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new AnsweringAgain.Poll(sent, System.currentTimeMillis(), 0, false, null);
        }
    }

    /**
     * From the fault, the owned key looked up through the survivor every 100 ms, until a fresh (not stale) answer to a
     * lookup sent once the instance was down, or {@code --recovery-timeout}.
     */
    Answering watchAnswering(Fault fault, ApiInstances.Instance killed, ApiInstances.Instance through, Optional<String> lookup) {
        if (lookup.isEmpty()) {
            return new Answering(killed.component(), through.component(), null, AnsweringAgain.summarize(List.of(), fault.faultAt, fault.faultAt),
                    "no key owned by " + killed.component() + " was found before the fault (see the drill's output)");
        }
        long deadline = fault.faultAt + recoveryTimeout * 1000L;
        List<AnsweringAgain.Poll> polls = new ArrayList<>();
        URI uri = through.url().resolve(lookup.get());
        try {
            while (System.currentTimeMillis() < deadline && fault.error == null) {
                AnsweringAgain.Poll p = lookup(uri);
                polls.add(p);
                long downAt = fault.downAt;
                if (downAt > 0 && p.sentAtMillis() >= downAt && p.httpStatus() == 200 && !p.stale()) {
                    break;
                }
                long wait = p.sentAtMillis() + 100 - System.currentTimeMillis();
                if (wait > 0) {
                    TimeUnit.MILLISECONDS.sleep(wait); // polling interval of a bounded watch
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long downAt = fault.downAt > 0 ? fault.downAt : fault.faultAt;
        AnsweringAgain.Result r = AnsweringAgain.summarize(polls, fault.faultAt, downAt);
        log.println("  " + lookup.get() + " answered 200 through " + through.component() + " " + (r.answeringAgainAfterMs() == null ? "never"
                : r.answeringAgainAfterMs() + " ms after the fault (" + (Boolean.TRUE.equals(r.staleAtFirst()) ? "stale, " : "fresh, ")
                + "served by " + r.servedByAtFirst() + ")") + "; fresh again " + (r.freshAgainAfterMs() == null ? "never"
                : r.freshAgainAfterMs() + " ms after the fault (served by " + r.servedByWhenFresh() + ")"));
        return new Answering(killed.component(), through.component(), lookup.get(), r, null);
    }

    private boolean serving(Fault fault, ChildStatus before) {
        if (target != null) {
            return target.serving(fault.faultAt);
        }
        return switch (scenario) {
            case KILL_API, WIPE_API_STATE -> Preflight.status(http, api.resolve("/q/health/ready")) == 200;
            case RESTART_BROKER -> fault.backAt != null;
            case KILL_CONNECT, KILL_CEP -> Preflight.component(data, scenario.component)
                    .filter(c -> c.state() == ChildState.RUNNING && c.pid() != before.pid()).isPresent();
            case KILL_BROKER_LEADER, KILL_TASKMANAGER, KILL_CONNECT_WORKER ->
                    throw new IllegalStateException(scenario.label + " watches its cluster target");
        };
    }
}
