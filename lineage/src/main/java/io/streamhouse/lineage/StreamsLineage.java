package io.streamhouse.lineage;

import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineage.RunEvent;
import io.openlineage.client.OpenLineage.RunEvent.EventType;
import org.apache.kafka.common.utils.AppInfoParser;

import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Builds the OpenLineage run events of one Kafka Streams application with openlineage-java: job
 * {@code streamhouse/<application id>}, inputs and outputs the topics of {@link TopologyDatasets} in the dataset
 * namespace {@code kafka://<first bootstrap server>}, name = topic (the OpenLineage naming of Kafka datasets). Pure:
 * the time and the run id are arguments, so the same call gives the same event.
 */
public final class StreamsLineage {
    /** The job namespace of every Streamhouse processor. */
    public static final String JOB_NAMESPACE = "streamhouse";
    /** Who wrote an event (the spec's {@code producer}: any URI). */
    public static final URI PRODUCER = URI.create("urn:streamhouse:lineage");
    /** The OpenLineage integration name in the job type facet. */
    public static final String INTEGRATION = "KAFKA_STREAMS";

    private final OpenLineage openLineage = new OpenLineage(PRODUCER);
    private final String applicationId;
    private final String datasetNamespace;
    private final TopologyDatasets datasets;

    public StreamsLineage(String applicationId, String bootstrapServers, TopologyDatasets datasets) {
        this.applicationId = Objects.requireNonNull(applicationId, "applicationId");
        this.datasetNamespace = datasetNamespace(bootstrapServers);
        this.datasets = Objects.requireNonNull(datasets, "datasets");
    }

    /** {@code kafka://host:port} of the first bootstrap server. */
    public static String datasetNamespace(String bootstrapServers) {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        String first = bootstrapServers.split(",")[0].trim();
        if (first.isEmpty()) {
            throw new IllegalArgumentException("bootstrap servers are empty: the lineage dataset namespace needs host:port");
        }
        int scheme = first.indexOf("://");
        return "kafka://" + (scheme >= 0 ? first.substring(scheme + 3) : first);
    }

    public String applicationId() {
        return applicationId;
    }

    public String datasetNamespace() {
        return datasetNamespace;
    }

    public TopologyDatasets datasets() {
        return datasets;
    }

    public RunEvent start(UUID runId, Instant at) {
        return event(EventType.START, runId, at, null, null);
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
                .processing_engine(openLineage.newProcessingEngineRunFacet(AppInfoParser.getVersion(), "kafka-streams",
                        null));
        if (error != null) {
            runFacets.errorMessage(openLineage.newErrorMessageRunFacet(error, "JAVA", stackTrace));
        }
        var jobFacets = openLineage.newJobFacetsBuilder()
                .jobType(openLineage.newJobTypeJobFacet("STREAMING", INTEGRATION, "APPLICATION"))
                .build();
        List<OpenLineage.InputDataset> inputs = datasets.inputs().stream()
                .map(topic -> openLineage.newInputDatasetBuilder().namespace(datasetNamespace).name(topic).build())
                .toList();
        List<OpenLineage.OutputDataset> outputs = datasets.outputs().stream()
                .map(topic -> openLineage.newOutputDatasetBuilder().namespace(datasetNamespace).name(topic).build())
                .toList();
        return openLineage.newRunEventBuilder()
                .eventType(type)
                .eventTime(at.atZone(ZoneOffset.UTC))
                .run(openLineage.newRunBuilder().runId(runId).facets(runFacets.build()).build())
                .job(openLineage.newJobBuilder().namespace(JOB_NAMESPACE).name(applicationId).facets(jobFacets).build())
                .inputs(inputs)
                .outputs(outputs)
                .build();
    }
}
