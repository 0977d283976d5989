package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.lineage.JobLineage;
import io.streamhouse.lineage.LineageGraph;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.lineage.TopicTransport;
import io.streamhouse.lineage.testing.LineageSchema;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import org.apache.flink.streaming.api.transformations.SourceTransformation;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CEP job's lineage, taken from Flink's lineage graph of the job exactly as {@link CepMain} wires it on Kafka, checked
 * against that job's own transformations and the topic catalog, and its events against the OpenLineage spec.
 */
class CepLineageTest {
    static final String BOOTSTRAP = "127.0.0.1:41517";
    static final String NS = "kafka://" + BOOTSTRAP;

    static StreamExecutionEnvironment wired(String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap", BOOTSTRAP + ",127.0.0.1:41518", "--group-id", "streamhouse-cep"));
        args.addAll(List.of(extra));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        CepMain.wire(env, CepOptions.parse(args.toArray(String[]::new), Map.of()));
        return env;
    }

    /** The names of the job's source transformations: CepJob names each Kafka source after its topic. */
    static Set<String> sourceNames(StreamExecutionEnvironment env) {
        Set<String> names = new TreeSet<>();
        Set<Transformation<?>> seen = new HashSet<>();
        List<Transformation<?>> todo = new ArrayList<>(env.getTransformations());
        while (!todo.isEmpty()) {
            Transformation<?> t = todo.remove(todo.size() - 1);
            if (seen.add(t)) {
                if (t instanceof SourceTransformation<?, ?, ?> source) {
                    names.add(source.getName());
                }
                todo.addAll(t.getInputs());
            }
        }
        return names;
    }

    static Set<String> names(List<JobLineage.Dataset> datasets) {
        assertThat(datasets).extracting(JobLineage.Dataset::namespace).containsOnly(NS);
        return datasets.stream().map(JobLineage.Dataset::name).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theInputsAreTheJobsKafkaSourcesAndTheOutputsEveryTopicItsSinksCanWriteAllInTheCatalog() {
        StreamExecutionEnvironment env = wired();
        JobLineage lineage = CepLineage.of("streamhouse-cep", env);

        Set<String> inputs = names(lineage.inputs());
        assertThat(inputs).isEqualTo(sourceNames(env))
                .isEqualTo(CepJob.inputs().stream().map(Topic::name).collect(Collectors.toSet()))
                .contains(Topics.RULES.name(), Topics.TRANSACTION_REQUESTS.name(), Topics.VEHICLE_TELEMETRY.name());

        Set<String> expected = new TreeSet<>();
        for (AlertCategory c : AlertCategory.values()) {
            expected.add(KafkaRecords.topicOf(c));
        }
        inputs.forEach(t -> expected.add(t + ".dlq"));
        Topics.eventTimeInputs().stream().map(Topic::name).filter(inputs::contains).forEach(t -> expected.add(t + ".late"));
        assertThat(names(lineage.outputs())).isEqualTo(expected)
                .contains("alerts.fraud", "alerts.parcels", "alerts.maintenance", "rules.definitions.dlq",
                        "fleet.vehicles.telemetry.late")
                .doesNotContain("rules.definitions.late");
        assertThat(expected).isSubsetOf(Topics.allWithDeadLetters().stream().map(Topic::name).toList());
        assertThat(env.getTransformations()).filteredOn(t -> t instanceof SinkTransformation<?, ?>).hasSize(3);
        assertThat(sourceNames(env)).as("the lineage graph does not consume the job").hasSize(inputs.size());
        assertThat(env.getStreamGraph().getStreamNodes()).as("the job still builds as executeAsync builds it")
                .hasSameSizeAs(wired().getStreamGraph().getStreamNodes());
    }

    @Test
    void aShadowRunWritesItsPrefixedTopicsAndReadsTheLiveOnes() {
        JobLineage lineage = CepLineage.of("streamhouse-cep-shadow-1", wired("--output-prefix", "shadow-1."));
        assertThat(names(lineage.outputs())).allMatch(t -> t.startsWith("shadow-1.")).contains("shadow-1.alerts.fraud");
        assertThat(names(lineage.inputs())).noneMatch(t -> t.startsWith("shadow-1.")).contains("payments.transactions.requested");
    }

    @Test
    void itsRunEventsAreValidOpenLineageAndFoldIntoTheJobsEdges() {
        JobLineage lineage = CepLineage.of("streamhouse-cep", wired());
        var producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        var run = new LineageRun(lineage, List.of(new TopicTransport(producer, Topics.LINEAGE_EVENTS.name())),
                Clock.fixed(Instant.parse("2026-12-03T08:00:00Z"), ZoneOffset.UTC));
        run.start();
        run.running();
        run.fail("Flink job streamhouse-cep failed", new IllegalStateException("boom"));
        run.close();

        List<String> values = producer.history().stream().map(ProducerRecord::value).toList();
        assertThat(values).hasSize(3).allSatisfy(v -> assertThat(LineageSchema.violations(v)).as(v).isEmpty());
        assertThat(values.get(0)).contains("\"integration\":\"FLINK\"", "\"name\":\"flink\"");
        LineageGraph graph = LineageGraph.of(producer.history().stream()
                .map(r -> io.openlineage.client.OpenLineageClientUtils.runEventFromJson(r.value())).toList());
        String job = LineageGraph.jobId("streamhouse", "streamhouse-cep");
        assertThat(graph.inputsOf(job)).isEqualTo(names(lineage.inputs()));
        assertThat(graph.outputsOf(job)).isEqualTo(names(lineage.outputs()));
        assertThat(graph.node(job).lastEvent()).isEqualTo("FAIL");
    }
}
