package io.streamhouse.lineage;

import io.openlineage.client.OpenLineage.RunEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class LineageGraphTest {
    static final Instant T0 = Instant.parse("2026-12-03T06:00:00Z");
    static final String NS = "kafka://127.0.0.1:47101";

    static StreamsLineage job(String name, List<String> in, List<String> out) {
        return new StreamsLineage(name, "127.0.0.1:47101", new TopologyDatasets(new TreeSet<>(in), new TreeSet<>(out), new TreeSet<>(), 0));
    }

    @Test
    void jobsAndTopicsBecomeNodesAndReadsAndWritesEdgesFromEachJobsLatestEventInAnyOrder() {
        var cdc = job("streamhouse-ingest-cdc", List.of("shop.cdc.changes"), List.of("shop.customers", "shop.orders"));
        var decisionsOld = job("streamhouse-api", List.of("payments.transactions.requested"), List.of("alerts.fraud"));
        var decisions = job("streamhouse-api", List.of("payments.transactions.requested", "shop.customers"),
                List.of("payments.transactions.decisions"));
        UUID cdcRun = UUID.randomUUID(), oldRun = UUID.randomUUID(), newRun = UUID.randomUUID(), otherInstance = UUID.randomUUID();
        List<RunEvent> events = new ArrayList<>(List.of(
                cdc.start(cdcRun, T0),
                decisionsOld.start(oldRun, T0),
                decisionsOld.complete(oldRun, T0.plusSeconds(60)),
                decisions.start(newRun, T0.plusSeconds(120)),
                decisions.start(otherInstance, T0.plusSeconds(121)),
                decisions.fail(otherInstance, T0.plusSeconds(180), "went to ERROR", null)));

        for (long seed = 0; seed < 5; seed++) {
            Collections.shuffle(events, new Random(seed));
            LineageGraph graph = LineageGraph.of(events);

            String api = LineageGraph.jobId("streamhouse", "streamhouse-api");
            String ingest = LineageGraph.jobId("streamhouse", "streamhouse-ingest-cdc");
            assertThat(graph.inputsOf(api)).containsExactly("payments.transactions.requested", "shop.customers");
            assertThat(graph.outputsOf(api)).containsExactly("payments.transactions.decisions");
            assertThat(graph.outputsOf(ingest)).containsExactly("shop.customers", "shop.orders");
            assertThat(graph.node(api).lastEvent()).isEqualTo("FAIL");
            assertThat(graph.node(api).runningRuns()).isEqualTo(1);
            assertThat(graph.node(ingest).runningRuns()).isEqualTo(1);
            assertThat(graph.edges()).contains(new LineageGraph.Edge(ingest, LineageGraph.datasetId(NS, "shop.customers")),
                    new LineageGraph.Edge(LineageGraph.datasetId(NS, "shop.customers"), api));
            assertThat(graph.nodes()).extracting(LineageGraph.Node::name).doesNotContain("alerts.fraud");
            assertThat(graph.nodes()).filteredOn(n -> n.kind() == LineageGraph.Kind.DATASET).hasSize(5);
        }
    }

    @Test
    void aRunWhoseLatestStartOrRunningIsOlderThanTheStaleBoundIsStaleNotRunning() {
        var cep = job("streamhouse-cep", List.of("rules.definitions"), List.of("alerts.fraud"));
        UUID killed = UUID.randomUUID(), beating = UUID.randomUUID(), ended = UUID.randomUUID();
        List<RunEvent> events = List.of(
                cep.start(killed, T0),
                cep.running(killed, T0.plusSeconds(300)),
                cep.start(beating, T0),
                cep.running(beating, T0.plusSeconds(1500)),
                cep.start(ended, T0),
                cep.complete(ended, T0.plusSeconds(10)));
        String job = LineageGraph.jobId("streamhouse", "streamhouse-cep");

        LineageGraph now = LineageGraph.of(events, T0.plusSeconds(1800), Duration.ofMinutes(15));
        assertThat(now.node(job).runningRuns()).isEqualTo(1);
        assertThat(now.node(job).staleRuns()).isEqualTo(1);
        assertThat(now.node(job).lastEvent()).isEqualTo("RUNNING");

        LineageGraph timeless = LineageGraph.of(events);
        assertThat(timeless.node(job).runningRuns()).isEqualTo(2);
        assertThat(timeless.node(job).staleRuns()).isZero();
        assertThat(timeless.node(LineageGraph.datasetId(NS, "alerts.fraud")).staleRuns()).isNull();
    }
}
