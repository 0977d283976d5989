package io.streamhouse.drills;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.StatusFile;
import io.streamhouse.domain.topic.ConnectNames;
import io.streamhouse.replay.Endpoints;
import io.streamhouse.replay.Groups;
import io.streamhouse.replay.ReplayCli;
import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;
import org.apache.kafka.clients.admin.Admin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Before any load: the stack the drill is about to fault is this machine's, running, ready and whole. Every endpoint
 * is loopback, the faulted component runs, the api answers ready, the groups the checks read exist. Exit 2 or 3 with
 * the reason otherwise, and nothing was sent.
 *
 * @param killed  kill-api on a stack of several instances: instance 1, the one killed
 * @param through kill-api on a stack of several instances: the first other one, which must answer the killed one's keys
 * @param before  the faulted component as the supervisor reported it before the fault
 */
record Preflight(URI ingest, URI api, Optional<ApiInstances.Instance> killed, Optional<ApiInstances.Instance> through,
                 Endpoints endpoints, String paymentsToken, String deviceToken, String opsToken, ChildStatus before) {

    /**
     * The groups of the running stack the drill watches.
     *
     * @param apiGroups the api's two Streams applications (decisions, the live serving id)
     * @param lakeRuns  the lake's sink group has members
     * @param lagGroups the consumer groups whose lag the recovery watch follows: the ones the faulted component feeds
     */
    record Watched(List<String> apiGroups, boolean lakeRuns, List<String> lagGroups) {
    }

    /** Everything that can be checked before Kafka is asked. */
    static Preflight check(DrillOptions options, ReplayCli.Stack stack, Scenario scenario, HttpClient http) throws IOException {
        ApiInstances instances = ApiInstances.read(stack.data());
        URI ingest = options.ingest != null ? options.ingest : instances.ingest().orElse(URI.create("http://127.0.0.1:8081"));
        URI api = options.api != null ? options.api
                : instances.instance("api").map(ApiInstances.Instance::url).orElse(URI.create("http://127.0.0.1:8082"));
        Drill.requireLoopback("--ingest-url", ingest.getHost());
        Drill.requireLoopback("--api-url", api.getHost());
        // kill-api on a stack of several instances: instance 1 is killed, the first other one must answer its keys.
        Optional<ApiInstances.Instance> killed = instances.instance("api").filter(i -> scenario == Scenario.KILL_API);
        Optional<ApiInstances.Instance> through = killed.flatMap(k -> instances.survivors(k.component()).stream().findFirst());
        if (through.isPresent()) {
            Drill.requireLoopback("api instance " + through.get().component(), through.get().url().getHost());
        }
        Endpoints endpoints = stack.endpoints();
        for (String host : Drill.bootstrapHosts(endpoints.bootstrapServers())) {
            Drill.requireLoopback("the Kafka bootstrap server", host);
        }
        Drill.requireLoopback("the schema registry", URI.create(endpoints.registryUrl()).getHost());
        // The drill's traffic goes in as the stack's development payments and device callers.
        String paymentsToken = StackTokens.read(stack.data(), Roles.PAYMENTS);
        String deviceToken = StackTokens.read(stack.data(), Roles.DEVICE);
        String opsToken = through.isPresent() ? StackTokens.read(stack.data(), Roles.OPS) : null;
        ReplayCli.Stack.requireRegistry(endpoints);
        if (status(http, api.resolve("/q/health/ready")) != 200) {
            throw new Endpoints.EnvironmentException("the api at " + api + " is not ready (/q/health/ready): start the stack first");
        }
        if (through.isPresent() && status(http, through.get().url().resolve("/q/health/ready")) != 200) {
            throw new Endpoints.EnvironmentException("api instance " + through.get().component() + " at " + through.get().url()
                    + " is not ready (/q/health/ready): ./streamhouse status");
        }
        if (scenario.onCluster()) {
            ClusterShape.require(scenario, StatusFile.read(stack.data().resolve(StatusFile.NAME))
                    .map(st -> st.components().stream().map(ChildStatus::name).toList()).orElse(List.of()));
        }
        ChildStatus before = component(stack.data(), scenario.component).orElseThrow(() -> new Endpoints.EnvironmentException(
                "this stack runs no " + scenario.component + " (" + stack.data().resolve(StatusFile.NAME) + "): start it with that part"));
        if (before.state() != ChildState.RUNNING) {
            throw new Endpoints.EnvironmentException(scenario.component + " is " + before.state().label() + ", not running: ./streamhouse status");
        }
        return new Preflight(ingest, api, killed, through, endpoints, paymentsToken, deviceToken, opsToken, before);
    }

    /** The api's groups exist, and what the scenario needs runs: the lake's sink for kill-connect, the CEP job for kill-cep. */
    static Watched groups(Admin admin, ReplayCli.Stack stack, Scenario scenario, Endpoints endpoints) throws Exception {
        List<String> apiGroups = List.of("streamhouse-api", stack.liveServingId());
        for (String g : apiGroups) {
            if (!Groups.exists(admin, g)) {
                throw new Endpoints.EnvironmentException("the api's group " + g + " is not on " + endpoints.bootstrapServers());
            }
        }
        boolean lakeRuns = DrillSteps.hasMembers(admin, ConnectNames.LAKE_GROUP);
        List<String> lagGroups = switch (scenario) {
            case KILL_API, WIPE_API_STATE -> apiGroups;
            case KILL_CEP, KILL_TASKMANAGER -> List.of(Drill.CEP_GROUP);
            case KILL_CONNECT, KILL_CONNECT_WORKER -> List.of(ConnectNames.LAKE_GROUP);
            case RESTART_BROKER, KILL_BROKER_LEADER -> {
                List<String> all = new ArrayList<>(apiGroups);
                if (Groups.exists(admin, Drill.CEP_GROUP)) {
                    all.add(Drill.CEP_GROUP);
                }
                if (lakeRuns) {
                    all.add(ConnectNames.LAKE_GROUP);
                }
                yield all;
            }
        };
        if ((scenario == Scenario.KILL_CONNECT || scenario == Scenario.KILL_CONNECT_WORKER) && !lakeRuns) {
            throw new Endpoints.EnvironmentException("the lake's sink (group " + ConnectNames.LAKE_GROUP
                    + ") has no members: " + scenario.label + " checks Iceberg against Kafka, start the stack with the lake");
        }
        if ((scenario == Scenario.KILL_CEP || scenario == Scenario.KILL_TASKMANAGER) && !Groups.exists(admin, Drill.CEP_GROUP)) {
            throw new Endpoints.EnvironmentException("the CEP job's group " + Drill.CEP_GROUP + " is not on " + endpoints.bootstrapServers());
        }
        return new Watched(apiGroups, lakeRuns, lagGroups);
    }

    /** The HTTP status of a GET, 0 when nothing answered within 2 s. */
    static int status(HttpClient http, URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** A component as the supervisor's status file reports it. */
    static Optional<ChildStatus> component(Path data, String name) {
        return StatusFile.read(data.resolve(StatusFile.NAME))
                .flatMap(s -> s.components().stream().filter(c -> c.name().equals(name)).findFirst());
    }
}
