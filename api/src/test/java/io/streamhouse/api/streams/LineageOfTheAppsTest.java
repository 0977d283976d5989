package io.streamhouse.api.streams;

import io.openlineage.client.OpenLineage.RunEvent;
import io.openlineage.client.OpenLineageClientUtils;
import io.opentelemetry.api.OpenTelemetry;
import io.streamhouse.api.serving.ServingStreams;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.lineage.LineageGraph;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.lineage.StreamsLineage;
import io.streamhouse.lineage.TopicTransport;
import io.streamhouse.lineage.TopologyDatasets;
import io.streamhouse.lineage.testing.LineageSchema;
import static io.streamhouse.lineage.testing.DescribedTopics.readBy;
import static io.streamhouse.lineage.testing.DescribedTopics.writtenBy;
import io.streamhouse.projections.serving.OpenStores;
import io.streamhouse.projections.serving.ServingTopology;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lineage of the api's two Streams apps, from the topologies they really run (built by the same methods: the
 * decision app's {@code @Produces} method, {@code ServingStreams.tracedTopology}): every event each emits is valid
 * OpenLineage, and the graph folded from the events on the wire has exactly the topics each topology's description
 * reads and writes (repartition topics left out) as edges.
 */
class LineageOfTheAppsTest {
    static final String BOOTSTRAP = "127.0.0.1:47101";
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-03T06:00:00Z"), ZoneOffset.UTC);

    final TopicSerdes serdes = new RegistryTopicSerdes(new InMemorySchemaRegistryClient());

    Topology decisionTopology() {
        return new StreamsWiring().topology(serdes, CLOCK, OpenTelemetry.noop());
    }

    Topology servingTopology() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "streamhouse-serving");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        return ServingStreams.tracedTopology(ServingTopology.Config.defaults(), serdes, new OpenStores(), OpenTelemetry.noop(), props);
    }

    /** One run as the app wires it: START, then the state listener sees the app stop; what it wrote on the topic. */
    static List<ProducerRecord<String, String>> runOnce(String applicationId, Topology topology) {
        var producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        var run = new LineageRun(new StreamsLineage(applicationId, BOOTSTRAP, TopologyDatasets.of(topology.describe())),
                List.of(new TopicTransport(producer, Topics.LINEAGE_EVENTS.name())), CLOCK);
        run.start();
        run.onChange(KafkaStreams.State.PENDING_SHUTDOWN, KafkaStreams.State.RUNNING);
        run.onChange(KafkaStreams.State.NOT_RUNNING, KafkaStreams.State.PENDING_SHUTDOWN);
        run.close();
        return producer.history();
    }

    @Test
    void theGraphOfTheEmittedEventsHasExactlyWhatEachTopologyReadsAndWrites() {
        Topology decision = decisionTopology();
        Topology serving = servingTopology();
        List<ProducerRecord<String, String>> written = new ArrayList<>(runOnce("streamhouse-api", decision));
        written.addAll(runOnce("streamhouse-serving", serving));

        List<RunEvent> events = new ArrayList<>();
        for (ProducerRecord<String, String> r : written) {
            assertThat(LineageSchema.violations(r.value())).as("OpenLineage schema violations of %s", r.value()).isEmpty();
            events.add(OpenLineageClientUtils.runEventFromJson(r.value()));
        }
        assertThat(events).extracting(e -> e.getJob().getName() + " " + e.getEventType())
                .containsExactly("streamhouse-api START", "streamhouse-api COMPLETE", "streamhouse-serving START", "streamhouse-serving COMPLETE");

        LineageGraph graph = LineageGraph.of(events);
        String decisionJob = LineageGraph.jobId("streamhouse", "streamhouse-api");
        String servingJob = LineageGraph.jobId("streamhouse", "streamhouse-serving");
        assertThat(graph.inputsOf(decisionJob)).isEqualTo(readBy(decision.describe()));
        assertThat(graph.outputsOf(decisionJob)).isEqualTo(writtenBy(decision.describe()));
        assertThat(graph.inputsOf(servingJob)).isEqualTo(readBy(serving.describe()));
        assertThat(graph.outputsOf(servingJob)).isEqualTo(writtenBy(serving.describe()));

        // What the topic map (docs/topics.md) says these apps read and write, as a check on the walk above.
        assertThat(graph.inputsOf(decisionJob)).contains(Topics.TRANSACTION_REQUESTS.name(), Topics.RULES.name(),
                Topics.CUSTOMERS.name(), Topics.REVIEW_OUTCOMES.name(), Topics.FRAUD_ALERTS.name());
        assertThat(graph.outputsOf(decisionJob)).contains(Topics.TRANSACTION_DECISIONS.name(), Topics.FRAUD_ALERTS.name());
        assertThat(graph.inputsOf(servingJob)).contains(Topics.PARCEL_SCANS.name(), Topics.VEHICLE_TELEMETRY.name(),
                Topics.FRAUD_ALERTS.name(), Topics.CUSTOMERS.name());
        assertThat(graph.nodes()).filteredOn(n -> n.kind() == LineageGraph.Kind.DATASET)
                .allSatisfy(n -> {
                    assertThat(n.namespace()).isEqualTo("kafka://" + BOOTSTRAP);
                    assertThat(n.name()).doesNotEndWith("-repartition");
                });
        // Every topic the apps touch is in the catalog, or is a repartition topic, which lineage leaves out.
        Set<String> catalog = new TreeSet<>();
        Topics.allWithDeadLetters().forEach(t -> catalog.add(t.name()));
        assertThat(graph.nodes()).filteredOn(n -> n.kind() == LineageGraph.Kind.DATASET)
                .allSatisfy(n -> assertThat(catalog).contains(n.name()));
    }
}
