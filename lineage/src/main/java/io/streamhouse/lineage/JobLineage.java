package io.streamhouse.lineage;

import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineage.RunEvent;
import io.openlineage.client.OpenLineage.RunEvent.EventType;

import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Builds the OpenLineage run events of one Streamhouse processor with openlineage-java: job
 * {@code streamhouse/<job name>} with its {@code jobType} facet, the engine in the {@code processing_engine} run facet,
 * and the datasets it reads and writes. Whatever the processor is (a Kafka Streams app, the Flink job, a Connect
 * connector), its datasets are worked out by the caller from the processor's real description or configuration.
 * Pure: the time and the run id are arguments, so the same call gives the same event.
 */
public class JobLineage {
    /** The job namespace of every Streamhouse processor. */
    public static final String JOB_NAMESPACE = "streamhouse";
    /** Who wrote an event (the spec's {@code producer}: any URI). */
    public static final URI PRODUCER = URI.create("urn:streamhouse:lineage");

    /**
     * What runs the job, for the {@code jobType} job facet and the {@code processing_engine} run facet.
     *
     * @param integration the spec's integration name, e.g. {@code KAFKA_STREAMS}, {@code FLINK}, {@code KAFKA_CONNECT}
     * @param jobType     e.g. {@code APPLICATION}, {@code JOB}, {@code CONNECTOR}
     * @param name        the engine, e.g. {@code kafka-streams}
     * @param version     the engine's version as it reports it
     */
    public record Engine(String integration, String jobType, String name, String version) {
        public Engine {
            Objects.requireNonNull(integration, "integration");
            Objects.requireNonNull(jobType, "jobType");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(version, "version");
        }
    }

    /**
     * A dataset as OpenLineage names it, with the other names it is known by ({@code symlinks} facet: an Iceberg
     * table's catalog name beside its location).
     */
    public record Dataset(String namespace, String name, List<Symlink> symlinks) {
        public Dataset {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
            symlinks = List.copyOf(symlinks);
        }

        public Dataset(String namespace, String name) {
            this(namespace, name, List.of());
        }
    }

    /** @param type the spec's identifier type, e.g. {@code TABLE} */
    public record Symlink(String namespace, String name, String type) {
    }

    private final OpenLineage openLineage = new OpenLineage(PRODUCER);
    private final String jobName;
    private final Engine engine;
    private final List<Dataset> inputs;
    private final List<Dataset> outputs;

    public JobLineage(String jobName, Engine engine, List<Dataset> inputs, List<Dataset> outputs) {
        this.jobName = Objects.requireNonNull(jobName, "jobName");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.inputs = List.copyOf(inputs);
        this.outputs = List.copyOf(outputs);
    }

    /** {@code kafka://host:port} of the first bootstrap server (OpenLineage's naming of Kafka datasets). */
    public static String kafkaNamespace(String bootstrapServers) {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        String first = bootstrapServers.split(",")[0].trim();
        if (first.isEmpty()) {
            throw new IllegalArgumentException("bootstrap servers are empty: the lineage dataset namespace needs host:port");
        }
        int scheme = first.indexOf("://");
        return "kafka://" + (scheme >= 0 ? first.substring(scheme + 3) : first);
    }

    /** The topics as Kafka datasets of the cluster {@code bootstrapServers}, in the given order. */
    public static List<Dataset> kafkaTopics(String bootstrapServers, Collection<String> topics) {
        String namespace = kafkaNamespace(bootstrapServers);
        return topics.stream().map(t -> new Dataset(namespace, t)).toList();
    }

    public String jobName() {
        return jobName;
    }

    public Engine engine() {
        return engine;
    }

    public List<Dataset> inputs() {
        return inputs;
    }

    public List<Dataset> outputs() {
        return outputs;
    }

    public RunEvent start(UUID runId, Instant at) {
        return event(EventType.START, runId, at, null, null);
    }

    /** A heartbeat of a run still going (the spec's RUNNING). */
    public RunEvent running(UUID runId, Instant at) {
        return event(EventType.RUNNING, runId, at, null, null);
    }

    public RunEvent complete(UUID runId, Instant at) {
        return event(EventType.COMPLETE, runId, at, null, null);
    }

    /** A FAIL event with the spec's {@code errorMessage} run facet. */
    public RunEvent fail(UUID runId, Instant at, String message, String stackTrace) {
        return event(EventType.FAIL, runId, at, Objects.requireNonNull(message, "message"), stackTrace);
    }

    private RunEvent event(EventType type, UUID runId, Instant at, String error, String stackTrace) {
        var runFacets = openLineage.newRunFacetsBuilder()
                .processing_engine(openLineage.newProcessingEngineRunFacet(engine.version(), engine.name(), null));
        if (error != null) {
            runFacets.errorMessage(openLineage.newErrorMessageRunFacet(error, "JAVA", stackTrace));
        }
        var jobFacets = openLineage.newJobFacetsBuilder()
                .jobType(openLineage.newJobTypeJobFacet("STREAMING", engine.integration(), engine.jobType()))
                .build();
        List<OpenLineage.InputDataset> in = inputs.stream()
                .map(d -> openLineage.newInputDatasetBuilder().namespace(d.namespace()).name(d.name()).facets(facets(d)).build())
                .toList();
        List<OpenLineage.OutputDataset> out = outputs.stream()
                .map(d -> openLineage.newOutputDatasetBuilder().namespace(d.namespace()).name(d.name()).facets(facets(d)).build())
                .toList();
        return openLineage.newRunEventBuilder()
                .eventType(type)
                .eventTime(at.atZone(ZoneOffset.UTC))
                .run(openLineage.newRunBuilder().runId(runId).facets(runFacets.build()).build())
                .job(openLineage.newJobBuilder().namespace(JOB_NAMESPACE).name(jobName).facets(jobFacets).build())
                .inputs(in)
                .outputs(out)
                .build();
    }

    private OpenLineage.DatasetFacets facets(Dataset d) {
        if (d.symlinks().isEmpty()) {
            return null;
        }
        return openLineage.newDatasetFacetsBuilder()
                .symlinks(openLineage.newSymlinksDatasetFacet(d.symlinks().stream()
                        .map(s -> openLineage.newSymlinksDatasetFacetIdentifiers(s.namespace(), s.name(), s.type()))
                        .toList()))
                .build();
    }
}
