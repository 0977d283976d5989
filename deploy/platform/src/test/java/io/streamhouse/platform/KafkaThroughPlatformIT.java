package io.streamhouse.platform;

import io.streamhouse.platform.junit.WithStreamhousePlatform;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The shared platform's broker works for the three things single-node brokers most often get wrong. */
@WithStreamhousePlatform
class KafkaThroughPlatformIT {

    private final EmbeddedPlatform platform;
    private final Admin admin;

    KafkaThroughPlatformIT(EmbeddedPlatform platform) {
        this.platform = platform;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()));
    }

    @AfterEach
    void closeAdmin() {
        admin.close();
    }

    @Test
    void aRecordProducedIsConsumed() throws Exception {
        String topic = newTopic("it.roundtrip", 1);
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            producer.send(new ProducerRecord<>(topic, "card-1", "authorized")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = consumer(Map.of())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
            List<ConsumerRecord<String, String>> records = Polling.atLeast(consumer, 1, Duration.ofSeconds(30));
            assertThat(records).extracting(ConsumerRecord::key, ConsumerRecord::value)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("card-1", "authorized"));
        }
    }

    @Test
    void transactionalProducerCommitsAndAbortsForReadCommittedConsumers() throws Exception {
        String topic = newTopic("it.transactions", 1);
        try (KafkaProducer<String, String> producer = producer(Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it-tx-" + UUID.randomUUID(),
                // initTransactions blocks on the transaction coordinator: with a wrong transaction.state.log RF/ISR it
                // would never become available, so fail fast instead of hanging.
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed-1"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "aborted"));
            producer.flush(); // on the log before the abort, so that read_committed has something to hide
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed-2"));
            producer.commitTransaction();
        }
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> uncommitted = consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"))) {
            uncommitted.assign(List.of(partition));
            uncommitted.seekToBeginning(List.of(partition));
            assertThat(Polling.atLeast(uncommitted, 3, Duration.ofSeconds(30))).extracting(ConsumerRecord::value)
                    .containsExactly("committed-1", "aborted", "committed-2");
        }
        try (KafkaConsumer<String, String> committed = consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            committed.assign(List.of(partition));
            committed.seekToBeginning(List.of(partition));
            List<ConsumerRecord<String, String>> records = Polling.atLeast(committed, 2, Duration.ofSeconds(30));
            assertThat(records).extracting(ConsumerRecord::value).containsExactly("committed-1", "committed-2");
        }
    }

    @Test
    void aConsumerGroupCommitsAndResumesFromItsOffsets() throws Exception {
        String topic = newTopic("it.groups", 3);
        String group = "it-group-" + UUID.randomUUID();
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, "key-" + i, "first-" + i));
            }
            producer.flush();
        }
        Map<String, Object> groupConfig = Map.of(ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, String> consumer = consumer(groupConfig)) {
            consumer.subscribe(List.of(topic));
            assertThat(Polling.atLeast(consumer, 5, Duration.ofSeconds(60))).hasSize(5);
            consumer.commitSync(Duration.ofSeconds(30));
        }
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        assertThat(committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum()).isEqualTo(5);

        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            producer.send(new ProducerRecord<>(topic, "key-late", "second")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = consumer(groupConfig)) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> resumed = Polling.atLeast(consumer, 1, Duration.ofSeconds(60));
            assertThat(resumed).extracting(ConsumerRecord::value).containsExactly("second");
        }
    }

    private String newTopic(String prefix, int partitions) throws Exception {
        String name = prefix + "." + UUID.randomUUID();
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        return name;
    }

    private KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(extra);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private KafkaConsumer<String, String> consumer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(extra);
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
        config.putIfAbsent(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }
}
