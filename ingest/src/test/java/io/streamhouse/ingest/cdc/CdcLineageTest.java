package io.streamhouse.ingest.cdc;

import io.openlineage.client.OpenLineage.RunEvent;
import io.openlineage.client.OpenLineageClientUtils;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerde;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.lineage.LineageGraph;
import io.streamhouse.lineage.LineageOutputs;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.lineage.StreamsLineage;
import io.streamhouse.lineage.TopicTransport;
import io.streamhouse.lineage.TopologyDatasets;
import io.streamhouse.lineage.testing.DescribedTopics;
import io.streamhouse.lineage.testing.LineageSchema;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CDC normaliser's lineage, from the topology {@link CdcNormaliser} runs (built by the same
 * {@code CdcNormalisationTopology.build}): its events are valid OpenLineage, and their graph reads and writes exactly
 * what the topology's description does.
 */
class CdcLineageTest {

    @Test
    void theNormalisersEventsAreValidAndTheirGraphIsItsTopology() {
        var registry = new InMemorySchemaRegistryClient();
        Topology topology = CdcNormalisationTopology.build(registry, new CdcNormalisationTopology.Serdes2(
                new AvroSerde<>(registry, CustomerEvent.class, false), new AvroSerde<>(registry, OrderEvent.class, false)));
        var producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        var run = new LineageRun(new StreamsLineage(CdcNormaliser.DEFAULT_APPLICATION_ID, "127.0.0.1:47101",
                TopologyDatasets.of(topology.describe())), List.of(new TopicTransport(producer, Topics.LINEAGE_EVENTS.name())),
                Clock.fixed(Instant.parse("2026-12-03T06:00:00Z"), ZoneOffset.UTC));

        run.start();
        run.onChange(KafkaStreams.State.ERROR, KafkaStreams.State.RUNNING);
        run.close();

        List<String> values = producer.history().stream().map(ProducerRecord::value).toList();
        for (String v : values) {
            assertThat(LineageSchema.violations(v)).as("OpenLineage schema violations of %s", v).isEmpty();
        }
        List<RunEvent> events = values.stream().map(OpenLineageClientUtils::runEventFromJson).toList();
        assertThat(events).extracting(e -> e.getEventType().name()).containsExactly("START", "FAIL");

        LineageGraph graph = LineageGraph.of(events);
        String job = LineageGraph.jobId("streamhouse", CdcNormaliser.DEFAULT_APPLICATION_ID);
        assertThat(graph.inputsOf(job)).isEqualTo(DescribedTopics.readBy(topology.describe()))
                .containsExactly(Topics.CDC_SHOP_CHANGES.name());
        assertThat(graph.outputsOf(job)).isEqualTo(DescribedTopics.writtenBy(topology.describe()))
                .containsExactly(Topics.deadLetterOf(Topics.CDC_SHOP_CHANGES).name(), Topics.CUSTOMERS.name(), Topics.ORDERS.name());
        assertThat(graph.node(job).runningRuns()).isZero();
    }

    /**
     * The wiring in {@link CdcNormaliser#start}: a real KafkaStreams (against a port where no broker listens, so it
     * never gets past starting) writes START into the lineage file when started and COMPLETE once it has stopped.
     */
    @Test
    void theRunningNormaliserWritesStartAndCompleteToItsLineageFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("lineage/openlineage-events.jsonl");
        var normaliser = CdcNormaliser.start(new CdcNormaliser.Settings("127.0.0.1:47199", "http://127.0.0.1:47198",
                dir.resolve("state"), "lineage-test-cdc", Duration.ofMillis(10)), new LineageOutputs(false, java.util.Optional.of(file)));
        List<String> started = Files.readAllLines(file);
        normaliser.close();

        List<String> lines = Files.readAllLines(file);
        assertThat(started).hasSize(1);
        assertThat(lines).hasSize(2).startsWith(started.get(0));
        assertThat(lines).extracting(l -> OpenLineageClientUtils.runEventFromJson(l).getEventType().name()).containsExactly("START", "COMPLETE");
        assertThat(lines).allSatisfy(l -> assertThat(LineageSchema.violations(l)).isEmpty());
        assertThat(OpenLineageClientUtils.runEventFromJson(lines.get(0)).getJob().getName()).isEqualTo("lineage-test-cdc");
    }
}
