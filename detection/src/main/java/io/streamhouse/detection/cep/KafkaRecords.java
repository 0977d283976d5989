package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.plumbing.DeadLetterHeaderBuilder;
import io.streamhouse.domain.topic.LateEventHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * How the job's outputs become Kafka records: alerts by category, dead letters and late events to their topics. Each
 * schema chooses the topic per record, so each also names every topic it can write ({@link KafkaDatasetFacetProvider}):
 * that is what Flink's lineage graph shows as the sink's datasets (an unnamed dynamic sink would show none).
 */
final class KafkaRecords {

    /** The topics a schema may write, as Flink's Kafka connector declares a sink's datasets. */
    private static Optional<KafkaDatasetFacet> declared(List<String> topics) {
        return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(topics)));
    }

    /** An alert in the wire format on the topic of its category, keyed by its subject (card, customer, parcel, vehicle). */
    static final class AlertSchema implements KafkaRecordSerializationSchema<Alert>, KafkaDatasetFacetProvider {
        private final RegistryClientFactory registry;
        private final String topicPrefix;
        private transient AvroSerializer<Alert> serializer;

        AlertSchema(RegistryClientFactory registry, String topicPrefix) {
            this.registry = registry;
            this.topicPrefix = topicPrefix;
        }

        @Override
        public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
            serializer = new AvroSerializer<>(registry.create(), Alert.class, false);
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(Alert alert, KafkaSinkContext context, Long timestamp) {
            String topic = topicOf(alert);
            // Serialised under the live topic's subject, so a replay's shadow copy is byte for byte the same. The record
            // is stamped when it is written (null: the producer's clock), its event time is in the value: a broker
            // refuses a timestamp its clock has not reached, and a topic's retention counts from the record's.
            return new ProducerRecord<>(topicPrefix + topic, null, null,
                    alert.getSubject().getId().getBytes(StandardCharsets.UTF_8), serializer.serialize(topic, alert));
        }

        /** The topic of every alert category. */
        @Override
        public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
            return declared(Arrays.stream(AlertCategory.values()).map(c -> topicPrefix + topicOf(c)).toList());
        }
    }

    static String topicOf(Alert alert) {
        return topicOf(alert.getCategory());
    }

    static String topicOf(AlertCategory category) {
        return switch (category) {
            case FRAUD -> Topics.FRAUD_ALERTS.name();
            case PARCEL -> Topics.PARCEL_ALERTS.name();
            case MAINTENANCE -> Topics.MAINTENANCE_ALERTS.name();
        };
    }

    /** A dead letter byte for byte on {@code <topic>.dlq}, with the reason headers the Streams topologies write. */
    static final class DeadLetterSchema implements KafkaRecordSerializationSchema<DeadLetter>, KafkaDatasetFacetProvider {
        private final String topicPrefix;

        DeadLetterSchema(String topicPrefix) {
            this.topicPrefix = topicPrefix;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(DeadLetter d, KafkaSinkContext context, Long timestamp) {
            Headers headers = DeadLetterHeaderBuilder.because(d.reason).exception(d.exception)
                    .source(d.sourceTopic, d.sourcePartition, d.sourceOffset).processor(d.processor).schemaId(d.schemaId)
                    .toHeaders();
            return new ProducerRecord<>(topicPrefix + d.sourceTopic + ".dlq", null, null, d.key, d.value, headers);
        }

        /** The dead-letter topic of every topic the job reads: each source's decoding and the pattern operators write there. */
        @Override
        public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
            return declared(CepJob.inputs().stream().map(t -> topicPrefix + Topics.deadLetterOf(t).name()).toList());
        }
    }

    /** A late event on {@code <topic>.late}, keyed as on its own topic, with why it was late. */
    static final class LateSchema implements KafkaRecordSerializationSchema<LateRecord>, KafkaDatasetFacetProvider {
        private final String topicPrefix;

        LateSchema(String topicPrefix) {
            this.topicPrefix = topicPrefix;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(LateRecord r, KafkaSinkContext context, Long timestamp) {
            RecordHeaders headers = new RecordHeaders();
            put(headers, LateEventHeaders.REASON, r.reason);
            put(headers, LateEventHeaders.SOURCE_TOPIC, r.sourceTopic);
            put(headers, LateEventHeaders.WATERMARK, Instant.ofEpochMilli(r.watermark).toString());
            put(headers, LateEventHeaders.LATENESS_MS, Long.toString(r.latenessMillis()));
            // Stamped when written, as alerts are; the event time is in the value and the headers.
            return new ProducerRecord<>(topicPrefix + r.lateTopic, null, null, r.key.getBytes(StandardCharsets.UTF_8), r.value,
                    headers);
        }

        /** The late-events topic of every input the job reads in event time. */
        @Override
        public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
            return declared(CepJob.eventTimeInputs().stream().map(t -> topicPrefix + Topics.lateOf(t).name()).toList());
        }
    }

    private static void put(RecordHeaders headers, String key, String value) {
        headers.add(key, String.valueOf(value).getBytes(StandardCharsets.UTF_8));
    }

    private KafkaRecords() {
    }
}
