package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.types.Either;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The job's Kafka sources and sinks. Sources read committed data only and start, without state, from the group's
 * committed offsets (the earliest when there are none). Sinks write in Kafka transactions committed with each Flink
 * checkpoint (exactly once end to end with the checkpointed source offsets and pattern state); readers of the alert
 * topics must read_committed, as the decision topology does.
 */
public final class KafkaCepIo {
    /** At most Kafka's default {@code transaction.max.timeout.ms}; must outlast a checkpoint plus a restart. */
    public static final Duration TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

    public static CepSources sources(String bootstrap, String groupId, RegistryClientFactory registry) {
        return sources(bootstrap, groupId, registry, Map.of());
    }

    /**
     * With {@code stopAt} empty, the live sources. Otherwise a bounded run (replay): every topic from its earliest offset
     * to its offsets in {@code stopAt}, which must name every partition of every topic read; each source then finishes,
     * the job emits its final watermark (+&infin;: every pending evaluation and deadline fires), commits and ends.
     */
    public static CepSources sources(String bootstrap, String groupId, RegistryClientFactory registry,
                                     Map<TopicPartition, Long> stopAt) {
        return new CepSources() {
            @Override
            public <T extends SpecificRecord> Source<Either<DeadLetter, T>, ?, ?> of(Topic<String, T> topic) {
                KafkaSourceBuilder<Either<DeadLetter, T>> builder = KafkaSource.<Either<DeadLetter, T>>builder()
                        .setBootstrapServers(bootstrap)
                        .setProperties(KafkaClientSettings.forPrincipal(KafkaPrincipal.CEP).flink(new Properties()))
                        .setTopics(topic.name())
                        .setGroupId(groupId)
                        .setDeserializer(new WireDeserializationSchema<>(topic, registry))
                        .setProperty("isolation.level", "read_committed")
                        .setProperty("client.id.prefix", groupId + "-" + topic.name());
                if (stopAt.isEmpty()) {
                    return builder.setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                            .setProperty("partition.discovery.interval.ms", "60000")
                            .build();
                }
                Map<TopicPartition, Long> ends = new HashMap<>();
                stopAt.forEach((tp, offset) -> {
                    if (tp.topic().equals(topic.name())) {
                        ends.put(tp, offset);
                    }
                });
                if (ends.isEmpty()) {
                    throw new IllegalArgumentException("--stop-at names no partition of " + topic.name());
                }
                return builder.setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.offsets(ends))
                        .build();
            }
        };
    }

    public static CepSinks sinks(String bootstrap, String transactionalIdPrefix, RegistryClientFactory registry,
                                 DeliveryGuarantee guarantee) {
        return sinks(bootstrap, transactionalIdPrefix, registry, guarantee, "");
    }

    /** Writing to {@code <topicPrefix><live topic>} (a replay's shadow topics; records byte for byte as live's). */
    public static CepSinks sinks(String bootstrap, String transactionalIdPrefix, RegistryClientFactory registry,
                                 DeliveryGuarantee guarantee, String topicPrefix) {
        return new CepSinks(
                sink(bootstrap, transactionalIdPrefix + "-alerts", new KafkaRecords.AlertSchema(registry, topicPrefix), guarantee),
                sink(bootstrap, transactionalIdPrefix + "-dlq", new KafkaRecords.DeadLetterSchema(topicPrefix), guarantee),
                sink(bootstrap, transactionalIdPrefix + "-late", new KafkaRecords.LateSchema(topicPrefix), guarantee));
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
                .setKafkaProducerConfig(KafkaClientSettings.forPrincipal(KafkaPrincipal.CEP).flink(producer))
                .build();
    }

    private KafkaCepIo() {
    }
}
