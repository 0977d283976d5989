package io.streamhouse.lineage;

import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import io.openlineage.client.transports.Transport;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;

/**
 * Writes run events as JSON ({@code OpenLineageClientUtils.toJson}) to {@code lineage.events} through a producer the
 * caller hands in (the apps' own kafka-clients, not the second client openlineage-java's Kafka transport would bring).
 * Keyed {@code <job namespace>/<job name>/<run id>}: the compacted topic keeps each run's latest event. Asynchronous;
 * a failed write is logged and lost, never an error of the processor (lineage must not stop a payment decision).
 */
public final class TopicTransport extends Transport {
    private static final Logger LOG = LoggerFactory.getLogger(TopicTransport.class);

    private final Producer<String, String> producer;
    private final String topic;

    public TopicTransport(Producer<String, String> producer, String topic) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.topic = Objects.requireNonNull(topic, "topic");
    }

    public static String keyOf(OpenLineage.RunEvent event) {
        return event.getJob().getNamespace() + "/" + event.getJob().getName() + "/" + event.getRun().getRunId();
    }

    @Override
    public void emit(OpenLineage.RunEvent event) {
        send(keyOf(event), OpenLineageClientUtils.toJson(event));
    }

    @Override
    public void emit(OpenLineage.DatasetEvent event) {
        send(event.getDataset().getNamespace() + "/" + event.getDataset().getName(), OpenLineageClientUtils.toJson(event));
    }

    @Override
    public void emit(OpenLineage.JobEvent event) {
        send(event.getJob().getNamespace() + "/" + event.getJob().getName(), OpenLineageClientUtils.toJson(event));
    }

    private void send(String key, String json) {
        try {
            producer.send(new ProducerRecord<>(topic, key, json), (metadata, e) -> {
                if (e != null) {
                    LOG.warn("Lineage event {} not written to {}: {}", key, topic, e.toString());
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("Lineage event {} not written to {}: {}", key, topic, e.toString());
        }
    }

    /** Flushes what is pending, for at most 5 s. */
    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
