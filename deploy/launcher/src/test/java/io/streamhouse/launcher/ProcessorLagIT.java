package io.streamhouse.launcher;

import io.streamhouse.broker.BrokerOptions;
import io.streamhouse.broker.BrokerProcess;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lag in seconds against a real broker and Kafka's own consumer: a partition five transactional records behind its
 * committed offset is as old as its oldest record; one where only the commit marker follows is caught up.
 */
class ProcessorLagIT {
    private static final String TOPIC = "lag-it.events";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    @Test
    void secondsAreTheOldestUnconsumedRecordsAgeAndAMarkerIsNoLag() throws Exception {
        Path dir = Path.of("target", "processor-lag-it").toAbsolutePath();
        Files.createDirectories(dir);
        try (BrokerProcess broker = BrokerProcess.start(BrokerOptions.ephemeral(dir));
             Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Instant now = Instant.now();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers(),
                    "transactional.id", "lag-it"), new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                for (int i = 0; i < 5; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, now.minusSeconds(10 - i).toEpochMilli(), "k", "v" + i));
                }
                producer.send(new ProducerRecord<>(TOPIC, 1, now.minusSeconds(30).toEpochMilli(), "k", "consumed"));
                producer.commitTransaction();
            }
            // The group consumed p1's one record (offset 0; the commit marker is at 1) and nothing of p0.
            admin.alterConsumerGroupOffsets("lag-it-group", Map.of(P0, new OffsetAndMetadata(0), P1, new OffsetAndMetadata(1)))
                    .all().get(30, TimeUnit.SECONDS);
            Map<String, Object> settings = new HashMap<>(ProcessorLag.consumerSettings());
            settings.put("bootstrap.servers", broker.bootstrapServers());
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings)) {
                ProcessorLag.Processor group = new ProcessorLag.Processor("lag-it", "lag-it-group");
                Instant polled = Instant.now();

                ProcessorLag.Entry lag = ProcessorLag.fetch(admin, consumer, List.of(group), polled, polled.plusSeconds(10)).get(0);

                assertThat(lag.unknown()).isEmpty();
                // Offsets, as Kafka's own tools count them: p0's five records and its commit marker; p1's lone marker counts 0.
                assertThat(lag.records()).as("p0's five records and marker; nothing on p1").contains(6L);
                // The oldest unconsumed record is p0's first, stamped ten seconds before now (in milliseconds, as Kafka keeps it).
                long oldest = now.minusSeconds(10).toEpochMilli();
                assertThat(lag.seconds()).contains((polled.toEpochMilli() - oldest) / 1000.0);
            }
        }
    }
}
