package io.streamhouse.lineage;

import io.openlineage.client.OpenLineage.RunEvent;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The lineage graph folded from run events: a node per job and per dataset, an edge dataset → job for each input and
 * job → dataset for each output. A job's edges are those of its latest event (by event time), so a job whose
 * topology changed shows what its newest run reads and writes; {@code runningRuns} counts its runs whose latest event
 * is START or RUNNING (every instance of an application is a run of its own), and, when folded with a time,
 * {@code staleRuns} those of them whose latest event is older than the stale bound: their heartbeats stopped without
 * an end ({@code kill -9}), so they are not counted as running. Order-independent: the same events in any order give
 * the same graph.
 */
public record LineageGraph(List<Node> nodes, List<Edge> edges) {

    public enum Kind { JOB, DATASET }

    /**
     * @param id          {@code job:<namespace>/<name>} or {@code dataset:<namespace>/<name>}
     * @param lastEvent   jobs: the type of the latest event; datasets: null
     * @param lastEventAt jobs: its time; datasets: null
     * @param runningRuns jobs: runs not ended whose latest event is recent; datasets: null
     * @param staleRuns   jobs: runs not ended whose latest event is older than the stale bound; datasets: null
     */
    public record Node(String id, Kind kind, String namespace, String name, String lastEvent, String lastEventAt,
                       Integer runningRuns, Integer staleRuns) {
    }

    public record Edge(String from, String to) {
    }

    public static String jobId(String namespace, String name) {
        return "job:" + namespace + "/" + name;
    }

    public static String datasetId(String namespace, String name) {
        return "dataset:" + namespace + "/" + name;
    }

    /** Every run not ended counts as running, however old its latest event. */
    public static LineageGraph of(List<RunEvent> events) {
        return of(events, Instant.MAX, Duration.ZERO);
    }

    /** A run not ended whose latest event is older than {@code now - staleAfter} counts as stale, not running. */
    public static LineageGraph of(List<RunEvent> events, Instant now, Duration staleAfter) {
        Instant staleBefore = now.equals(Instant.MAX) ? Instant.MIN : now.minus(staleAfter);
        Map<String, RunEvent> latestByJob = new TreeMap<>();
        Map<UUID, RunEvent> latestByRun = new HashMap<>();
        Comparator<RunEvent> byTime = Comparator.comparing(RunEvent::getEventTime, Comparator.comparing(ZonedDateTime::toInstant));
        for (RunEvent e : events) {
            latestByJob.merge(jobId(e.getJob().getNamespace(), e.getJob().getName()), e, (a, b) -> byTime.compare(b, a) >= 0 ? b : a);
            latestByRun.merge(e.getRun().getRunId(), e, (a, b) -> byTime.compare(b, a) >= 0 ? b : a);
        }
        Map<String, Integer> running = new HashMap<>();
        Map<String, Integer> stale = new HashMap<>();
        for (RunEvent e : latestByRun.values()) {
            String job = jobId(e.getJob().getNamespace(), e.getJob().getName());
            boolean live = e.getEventType() == RunEvent.EventType.START || e.getEventType() == RunEvent.EventType.RUNNING;
            boolean old = e.getEventTime().toInstant().isBefore(staleBefore);
            running.merge(job, live && !old ? 1 : 0, Integer::sum);
            stale.merge(job, live && old ? 1 : 0, Integer::sum);
        }
        Map<String, Node> datasets = new TreeMap<>();
        List<Node> jobs = new ArrayList<>();
        Set<Edge> edges = new LinkedHashSet<>();
        for (var entry : latestByJob.entrySet()) {
            RunEvent e = entry.getValue();
            jobs.add(new Node(entry.getKey(), Kind.JOB, e.getJob().getNamespace(), e.getJob().getName(),
                    e.getEventType().name(), e.getEventTime().toInstant().toString(), running.getOrDefault(entry.getKey(), 0),
                    stale.getOrDefault(entry.getKey(), 0)));
            for (var in : e.getInputs() == null ? List.<io.openlineage.client.OpenLineage.InputDataset>of() : e.getInputs()) {
                String id = datasetId(in.getNamespace(), in.getName());
                datasets.putIfAbsent(id, new Node(id, Kind.DATASET, in.getNamespace(), in.getName(), null, null, null, null));
                edges.add(new Edge(id, entry.getKey()));
            }
            for (var out : e.getOutputs() == null ? List.<io.openlineage.client.OpenLineage.OutputDataset>of() : e.getOutputs()) {
                String id = datasetId(out.getNamespace(), out.getName());
                datasets.putIfAbsent(id, new Node(id, Kind.DATASET, out.getNamespace(), out.getName(), null, null, null, null));
                edges.add(new Edge(entry.getKey(), id));
            }
        }
        List<Node> nodes = new ArrayList<>(jobs);
        nodes.addAll(datasets.values());
        List<Edge> sorted = new ArrayList<>(edges);
        sorted.sort(Comparator.comparing(Edge::from).thenComparing(Edge::to));
        return new LineageGraph(List.copyOf(nodes), List.copyOf(sorted));
    }

    /** The topics a job reads (edges into it), by name. */
    public Set<String> inputsOf(String jobId) {
        Set<String> names = new java.util.TreeSet<>();
        for (Edge e : edges) {
            if (e.to().equals(jobId)) {
                names.add(node(e.from()).name());
            }
        }
        return names;
    }

    /** The topics a job writes (edges out of it), by name. */
    public Set<String> outputsOf(String jobId) {
        Set<String> names = new java.util.TreeSet<>();
        for (Edge e : edges) {
            if (e.from().equals(jobId)) {
                names.add(node(e.to()).name());
            }
        }
        return names;
    }

    public Node node(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + id));
    }
}
