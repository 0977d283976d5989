package io.streamhouse.detection.cep;

import io.streamhouse.lineage.JobLineage;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.lineage.LineageDataset;
import org.apache.flink.streaming.api.lineage.LineageGraph;
import org.apache.flink.streaming.api.lineage.LineageVertex;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CEP job's OpenLineage datasets, read from Flink's own lineage graph of the wired job (FLIP-314:
 * {@code StreamGraph.getLineageGraph()}): the Kafka sources name their topics and cluster themselves, the sinks name
 * the topics their record schemas may write ({@link KafkaRecords}). Flink's Kafka connector names a dataset
 * {@code kafka://<first bootstrap server>} and joins a multi-topic vertex's topics with commas; here each topic is a
 * dataset of its own, as for the other processors. Job name: the job's consumer group (its application id, as the
 * Streams apps' job names are theirs), so a replay's shadow run is a job of its own.
 */
public final class CepLineage {
    /** The OpenLineage integration name in the job type facet. */
    public static final String INTEGRATION = "FLINK";

    /** The lineage of the job wired on {@code env} (not yet executed; its transformations are kept). */
    public static JobLineage of(String jobName, StreamExecutionEnvironment env) {
        return of(jobName, env.getStreamGraph(false).getLineageGraph());
    }

    static JobLineage of(String jobName, LineageGraph graph) {
        List<JobLineage.Dataset> inputs = datasets(graph.sources());
        List<JobLineage.Dataset> outputs = datasets(graph.sinks());
        return new JobLineage(jobName, new JobLineage.Engine(INTEGRATION, "JOB", "flink", EnvironmentInformation.getVersion()),
                inputs, outputs);
    }

    private static List<JobLineage.Dataset> datasets(Collection<? extends LineageVertex> vertices) {
        Map<String, JobLineage.Dataset> byId = new LinkedHashMap<>();
        for (LineageVertex vertex : vertices) {
            for (LineageDataset d : vertex.datasets()) {
                for (String topic : d.name().split(",")) {
                    byId.putIfAbsent(d.namespace() + "/" + topic.trim(), new JobLineage.Dataset(d.namespace(), topic.trim()));
                }
            }
        }
        return new ArrayList<>(byId.values());
    }

    private CepLineage() {
    }
}
