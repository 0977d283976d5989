package io.streamhouse.lineage;

import org.apache.kafka.common.utils.AppInfoParser;

import java.util.Objects;

/**
 * The lineage of one Kafka Streams application: job {@code streamhouse/<application id>} (integration
 * {@value #INTEGRATION}), inputs and outputs the topics of {@link TopologyDatasets} in the dataset namespace
 * {@code kafka://<first bootstrap server>}, name = topic (the OpenLineage naming of Kafka datasets).
 */
public final class StreamsLineage extends JobLineage {
    /** The OpenLineage integration name in the job type facet. */
    public static final String INTEGRATION = "KAFKA_STREAMS";

    private final TopologyDatasets datasets;

    public StreamsLineage(String applicationId, String bootstrapServers, TopologyDatasets datasets) {
        super(Objects.requireNonNull(applicationId, "applicationId"),
                new Engine(INTEGRATION, "APPLICATION", "kafka-streams", AppInfoParser.getVersion()),
                kafkaTopics(bootstrapServers, Objects.requireNonNull(datasets, "datasets").inputs()),
                kafkaTopics(bootstrapServers, datasets.outputs()));
        this.datasets = datasets;
    }

    /** {@code kafka://host:port} of the first bootstrap server. */
    public static String datasetNamespace(String bootstrapServers) {
        return kafkaNamespace(bootstrapServers);
    }

    public String applicationId() {
        return jobName();
    }

    public TopologyDatasets datasets() {
        return datasets;
    }
}
