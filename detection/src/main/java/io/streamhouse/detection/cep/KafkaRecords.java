package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.LateEventHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** How the job's outputs become Kafka records: alerts by category, dead letters and late events to their topics. */
final class KafkaRecords {

    /** An alert in the wire format on the topic of its category, keyed by its subject (card, customer, parcel, vehicle). */
    static final class AlertSchema implements KafkaRecordSerializationSchema<Alert> {
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
            // Serialised under the live topic's subject, so a replay's shadow copy is byte for byte the same.
            return new ProducerRecord<>(topicPrefix + topic, null, alert.getWindowEnd().toEpochMilli(),
                    alert.getSubject().getId().getBytes(StandardCharsets.UTF_8), serializer.serialize(topic, alert));
        }
    }

    static String topicOf(Alert alert) {
        return switch (alert.getCategory()) {
            case FRAUD -> Topics.FRAUD_ALERTS.name();
            case PARCEL -> Topics.PARCEL_ALERTS.name();
            case MAINTENANCE -> Topics.MAINTENANCE_ALERTS.name();
        };
    }

    /** A dead letter byte for byte on {@code <topic>.dlq}, with the reason headers the Streams topologies write. */
    static final class DeadLetterSchema implements KafkaRecordSerializationSchema<DeadLetter> {
        private final String topicPrefix;

        DeadLetterSchema(String topicPrefix) {
            this.topicPrefix = topicPrefix;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(DeadLetter d, KafkaSinkContext context, Long timestamp) {
            RecordHeaders headers = new RecordHeaders();
            put(headers, DeadLetterHeaders.REASON, d.reason);
            if (d.exception != null) {
                put(headers, DeadLetterHeaders.EXCEPTION, d.exception);
            }
            put(headers, DeadLetterHeaders.SOURCE_TOPIC, d.sourceTopic);
            put(headers, DeadLetterHeaders.SOURCE_PARTITION, Integer.toString(d.sourcePartition));
            put(headers, DeadLetterHeaders.SOURCE_OFFSET, Long.toString(d.sourceOffset));
            put(headers, DeadLetterHeaders.PROCESSOR, d.processor);
            if (d.schemaId != null) {
                put(headers, DeadLetterHeaders.SCHEMA_ID, Integer.toString(d.schemaId));
            }
            return new ProducerRecord<>(topicPrefix + d.sourceTopic + ".dlq", null, null, d.key, d.value, headers);
        }
    }

    /** A late event on {@code <topic>.late}, keyed as on its own topic, with why it was late. */
    static final class LateSchema implements KafkaRecordSerializationSchema<LateRecord> {
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
            return new ProducerRecord<>(topicPrefix + r.lateTopic, null, r.occurredAt, r.key.getBytes(StandardCharsets.UTF_8), r.value,
                    headers);
        }
    }

    private static void put(RecordHeaders headers, String key, String value) {
        headers.add(key, String.valueOf(value).getBytes(StandardCharsets.UTF_8));
    }

    private KafkaRecords() {
    }
}
