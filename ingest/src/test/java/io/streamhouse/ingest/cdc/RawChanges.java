package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Reads the raw capture topic (read_committed) to its end, for what the source itself delivered. */
final class RawChanges {

    private RawChanges() {
    }

    /** How many order inserts (op c) the raw topic holds per order id starting with {@code prefix}. */
    static Map<String, Integer> orderInsertsPerOrder(EmbeddedPlatform platform, String prefix) {
        ShopChanges changes = new ShopChanges(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()));
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "cdc-raw-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(Topics.CDC_SHOP_CHANGES.name(), 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        continue;
                    }
                    ShopChange change = changes.read(r.topic(), r.value());
                    if (change.table().equals("orders") && change.isInsert()) {
                        String id = ShopChanges.requiredString(change.after(), "id");
                        if (id.startsWith(prefix)) {
                            counts.merge(id, 1, Integer::sum);
                        }
                    }
                }
            }
        }
        return counts;
    }
}
