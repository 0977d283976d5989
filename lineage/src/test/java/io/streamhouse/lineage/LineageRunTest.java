package io.streamhouse.lineage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.openlineage.client.transports.FileConfig;
import io.openlineage.client.transports.FileTransport;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.lineage.testing.LineageSchema;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LineageRunTest {
    static final Instant T0 = Instant.parse("2026-12-03T06:00:00Z");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    final MockProducer<String, String> producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());

    LineageRun run(Path file) {
        var datasets = new TopologyDatasets(new TreeSet<>(List.of("payments.transactions.requested", "rules.definitions")),
                new TreeSet<>(List.of("payments.transactions.decisions")), new TreeSet<>(), 0);
        var lineage = new StreamsLineage("streamhouse-api", "127.0.0.1:47101,127.0.0.1:47102", datasets);
        return new LineageRun(lineage, List.of(new TopicTransport(producer, Topics.LINEAGE_EVENTS.name()),
                new FileTransport(new FileConfig(file.toString()))), Clock.fixed(T0, ZoneOffset.UTC));
    }

    @Test
    void startThenStopWritesOneStartAndOneCompleteToTheTopicAndTheFileEachValidOpenLineage() throws Exception {
        Path file = dir.resolve("logs/lineage.jsonl");
        LineageRun run = run(file);
        run.start();
        run.start();
        run.onChange(State.RUNNING, State.REBALANCING);
        run.onChange(State.PENDING_SHUTDOWN, State.RUNNING);
        run.onChange(State.NOT_RUNNING, State.PENDING_SHUTDOWN);
        assertThat(producer.history()).as("written once the app stopped, before close").hasSize(2);
        run.close();

        List<ProducerRecord<String, String>> sent = producer.history();
        assertThat(sent).extracting(ProducerRecord::topic).containsOnly("lineage.events");
        assertThat(sent).extracting(ProducerRecord::key).containsOnly("streamhouse/streamhouse-api/" + run.runId());
        List<JsonNode> events = sent.stream().map(r -> read(r.value())).toList();
        assertThat(events).extracting(e -> e.get("eventType").asText()).containsExactly("START", "COMPLETE");
        for (ProducerRecord<String, String> r : sent) {
            assertThat(LineageSchema.violations(r.value())).as(r.value()).isEmpty();
        }
        JsonNode start = events.get(0);
        assertThat(start.at("/job/namespace").asText()).isEqualTo("streamhouse");
        assertThat(start.at("/job/name").asText()).isEqualTo("streamhouse-api");
        assertThat(start.at("/job/facets/jobType/processingType").asText()).isEqualTo("STREAMING");
        assertThat(start.at("/run/runId").asText()).isEqualTo(run.runId().toString());
        assertThat(start.at("/eventTime").asText()).startsWith("2026-12-03T06:00");
        assertThat(start.get("inputs")).extracting(d -> d.get("namespace").asText() + " " + d.get("name").asText())
                .containsExactly("kafka://127.0.0.1:47101 payments.transactions.requested", "kafka://127.0.0.1:47101 rules.definitions");
        assertThat(start.get("outputs")).extracting(d -> d.get("name").asText()).containsExactly("payments.transactions.decisions");
        assertThat(Files.readAllLines(file)).containsExactly(sent.get(0).value(), sent.get(1).value());
        assertThat(producer.closed()).isTrue();
    }

    @Test
    void anErrorStateEndsTheRunWithFailAndItsMessageAndNothingAfter() {
        Path file = dir.resolve("lineage.jsonl");
        LineageRun run = run(file);
        run.start();
        run.onChange(State.ERROR, State.RUNNING);
        run.onChange(State.NOT_RUNNING, State.ERROR);
        run.close();

        List<String> values = producer.history().stream().map(ProducerRecord::value).toList();
        assertThat(values).extracting(v -> read(v).get("eventType").asText()).containsExactly("START", "FAIL");
        JsonNode fail = read(values.get(1));
        assertThat(fail.at("/run/facets/errorMessage/message").asText()).contains("streamhouse-api", "ERROR");
        assertThat(fail.at("/run/facets/errorMessage/programmingLanguage").asText()).isEqualTo("JAVA");
        assertThat(LineageSchema.violations(values.get(1))).isEmpty();
    }

    @Test
    void closeWithoutAStopStillCompletesTheRunAndARunNeverStartedEmitsNothing() {
        LineageRun started = run(dir.resolve("a.jsonl"));
        started.start();
        started.close();
        assertThat(producer.history()).extracting(r -> read(r.value()).get("eventType").asText()).containsExactly("START", "COMPLETE");

        producer.clear();
        LineageRun never = run(dir.resolve("b.jsonl"));
        never.onChange(State.NOT_RUNNING, State.PENDING_SHUTDOWN);
        never.close();
        assertThat(producer.history()).isEmpty();
        assertThat(dir.resolve("b.jsonl")).doesNotExist();
    }

    @Test
    void aStartedRunHeartbeatsRunningToTheTopicOnlyAndStopsWhenItEnds() throws Exception {
        Path file = dir.resolve("heartbeats.jsonl");
        var datasets = new TopologyDatasets(new TreeSet<>(List.of("rules.definitions")), new TreeSet<>(), new TreeSet<>(), 0);
        LineageRun run = new LineageRun(new StreamsLineage("streamhouse-api", "127.0.0.1:47101", datasets),
                List.of(new TopicTransport(producer, Topics.LINEAGE_EVENTS.name()), new FileTransport(new FileConfig(file.toString()))),
                Clock.systemUTC(), Duration.ofMillis(20));
        run.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() >= 3);
        run.complete();
        assertThat(run.heartbeatsStopped(Duration.ofSeconds(5))).isTrue();
        int sent = producer.history().size();
        assertThat(run.running()).as("no heartbeat once ended").isFalse();
        run.close();

        List<String> types = producer.history().stream().map(r -> read(r.value()).get("eventType").asText()).toList();
        assertThat(types).hasSize(sent).startsWith("START", "RUNNING").endsWith("COMPLETE");
        assertThat(types.subList(1, types.size() - 1)).containsOnly("RUNNING");
        assertThat(producer.history()).allSatisfy(r -> assertThat(LineageSchema.violations(r.value())).isEmpty());
        assertThat(Files.readAllLines(file)).extracting(l -> read(l).get("eventType").asText()).containsExactly("START", "COMPLETE");
    }

    @Test
    void theSchemaRejectsWhatTheSpecForbids() {
        String valid = producerlessEvent();
        assertThat(LineageSchema.violations(valid)).isEmpty();
        assertThat(LineageSchema.violations(valid.replace("\"eventType\":\"START\"", "\"eventType\":\"BEGIN\""))).isNotEmpty();
        assertThat(LineageSchema.violations(valid.replaceFirst("\"runId\":\"[^\"]+\"", "\"runId\":\"not-a-uuid\""))).isNotEmpty();
        assertThat(LineageSchema.violations(valid.replaceFirst("\"eventTime\":\"[^\"]+\"", "\"eventTime\":\"yesterday\""))).isNotEmpty();
        assertThat(LineageSchema.violations(valid.replace("\"namespace\":\"streamhouse\",", ""))).isNotEmpty();
    }

    @Test
    void eachFacetIsCheckedAgainstTheVendoredSchemaItsSchemaUrlNames() {
        String valid = producerlessEvent();
        assertThat(valid).contains("\"processingType\":\"STREAMING\"", "/facets/2-0-3/JobTypeJobFacet.json");
        assertThat(LineageSchema.violations(valid.replace("\"processingType\":\"STREAMING\",", "")))
                .as("JobTypeJobFacet requires processingType").anyMatch(v -> v.contains("jobType") && v.contains("processingType"));
        assertThat(LineageSchema.violations(valid.replace("/facets/2-0-3/JobTypeJobFacet.json", "/facets/9-9-9/JobTypeJobFacet.json")))
                .anyMatch(v -> v.contains("not vendored"));
        assertThat(LineageSchema.violations(valid.replace("\"jobType\":{", "\"kind\":{")))
                .anyMatch(v -> v.contains("defines the facet under [jobType]"));
        assertThat(LineageSchema.violations(valid.replace("/spec/2-0-2/OpenLineage.json#/$defs/RunEvent", "/spec/1-0-5/OpenLineage.json#/$defs/RunEvent")))
                .anyMatch(v -> v.contains("not of the vendored spec"));
    }

    private String producerlessEvent() {
        LineageRun run = run(dir.resolve("c.jsonl"));
        run.start();
        return producer.history().get(0).value();
    }

    @Test
    void theDatasetNamespaceIsTheFirstBootstrapServer() {
        assertThat(StreamsLineage.datasetNamespace(" broker-1:9092 , broker-2:9092")).isEqualTo("kafka://broker-1:9092");
        assertThat(StreamsLineage.datasetNamespace("SASL_SSL://broker-1:9093")).isEqualTo("kafka://broker-1:9093");
    }

    static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(json, e);
        }
    }
}
