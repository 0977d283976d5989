package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.Topic;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.types.Either;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

import java.time.Duration;
import java.util.Properties;

/**
 * The job's Kafka sources and sinks. Sources read committed data only and start, without state, from the group's
 * committed offsets (the earliest when there are none). Sinks write in Kafka transactions committed with each Flink
 * checkpoint (exactly once end to end with the checkpointed source offsets and matcher state); readers of the alert
 * topics must read_committed, as the decision topology does.
 */
public final class KafkaCepIo {
    /** At most Kafka's default {@code transaction.max.timeout.ms}; must outlast a checkpoint plus a restart. */
    public static final Duration TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

    public static CepSources sources(String bootstrap, String groupId, RegistryClientFactory registry) {
        return new CepSources() {
            @Override
            public <T extends SpecificRecord> Source<Either<DeadLetter, T>, ?, ?> of(Topic<String, T> topic) {
                return KafkaSource.<Either<DeadLetter, T>>builder()
                        .setBootstrapServers(bootstrap)
                        .setTopics(topic.name())
                        .setGroupId(groupId)
                        .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                        .setDeserializer(new WireDeserializationSchema<>(topic, registry))
                        .setProperty("isolation.level", "read_committed")
                        .setProperty("partition.discovery.interval.ms", "60000")
                        .setProperty("client.id.prefix", groupId + "-" + topic.name())
                        .build();
            }
        };
    }

    public static CepSinks sinks(String bootstrap, String transactionalIdPrefix, RegistryClientFactory registry,
                                 DeliveryGuarantee guarantee) {
        return new CepSinks(
                sink(bootstrap, transactionalIdPrefix + "-alerts", new KafkaRecords.AlertSchema(registry), guarantee),
                sink(bootstrap, transactionalIdPrefix + "-dlq", new KafkaRecords.DeadLetterSchema(), guarantee),
                sink(bootstrap, transactionalIdPrefix + "-late", new KafkaRecords.LateSchema(), guarantee));
    }

    private static <T> KafkaSink<T> sink(String bootstrap, String transactionalIdPrefix,
                                         KafkaRecordSerializationSchema<T> schema, DeliveryGuarantee guarantee) {
        Properties producer = new Properties();
        producer.setProperty("transaction.timeout.ms", Long.toString(TRANSACTION_TIMEOUT.toMillis()));
        producer.setProperty("linger.ms", "0");
        return KafkaSink.<T>builder()
                .setBootstrapServers(bootstrap)
                .setRecordSerializer(schema)
                .setDeliveryGuarantee(guarantee)
                .setTransactionalIdPrefix(transactionalIdPrefix)
                .setKafkaProducerConfig(producer)
                .build();
    }

    private KafkaCepIo() {
    }
}
