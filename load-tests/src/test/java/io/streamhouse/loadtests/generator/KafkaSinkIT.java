package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The Kafka target on a real broker and registry: every event on its catalog topic, keyed, readable, in key order. */
class KafkaSinkIT {

    @Test
    void everyEventArrivesOnItsCatalogTopicKeyedByItsAggregateAndReadableThroughTheRegistry() throws Exception {
        EmbeddedPlatform platform = SharedPlatform.get();
        Generation g = Generator.generate(GeneratorConfig.defaults(77, 3_000));
        try (KafkaSink sink = new KafkaSink(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Map.of())) {
            var result = SinkRun.send(g, sink, EnumSet.allOf(EventKind.class), Duration.ofSeconds(60), null);
            assertThat(result.sent()).isEqualTo(3_000);
        }

        Map<String, GeneratedEvent> expected = new LinkedHashMap<>();
        g.events().forEach(e -> expected.put(e.eventId(), e));
        var registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        Map<EventKind, AvroDeserializer<SpecificRecord>> readers = new EnumMap<>(EventKind.class);
        for (EventKind kind : EventKind.values()) {
            readers.put(kind, reader(registry, kind.topic().valueType()));
        }
        Map<String, List<String>> seenByKey = new HashMap<>();
        int matched = 0;
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (EventKind kind : EventKind.values()) {
                for (int p = 0; p < kind.topic().partitions(); p++) {
                    partitions.add(new TopicPartition(kind.topic().name(), p));
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (matched < expected.size() && System.nanoTime() < until) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    EventKind kind = kindOf(r.topic());
                    SpecificRecord value = readers.get(kind).deserialize(r.topic(), r.value());
                    String eventId = ((io.streamhouse.domain.event.Envelope) value.get(0)).getEventId();
                    GeneratedEvent e = expected.get(eventId);
                    if (e == null) {
                        continue;
                    }
                    assertThat(r.key()).isEqualTo(e.key());
                    assertThat(value).isEqualTo(e.value());
                    seenByKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(eventId);
                    matched++;
                }
            }
        }
        assertThat(matched).isEqualTo(expected.size());
        // One key, one partition: each aggregate's events arrive in the generator's delivery order, lateness included.
        Map<String, List<String>> deliveredByKey = new HashMap<>();
        g.events().forEach(e -> deliveredByKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e.eventId()));
        assertThat(seenByKey).isEqualTo(deliveredByKey);
        for (EventKind kind : EventKind.values()) {
            assertThat(registry.getLatest(kind.topic().valueSubject()).schema().getFullName())
                    .isEqualTo(kind.topic().valueType().getName());
        }
    }

    private static EventKind kindOf(String topic) {
        for (EventKind k : EventKind.values()) {
            if (k.topic().name().equals(topic)) {
                return k;
            }
        }
        throw new AssertionError("unexpected topic " + topic);
    }

    @SuppressWarnings("unchecked")
    private static AvroDeserializer<SpecificRecord> reader(CachingSchemaRegistryClient registry, Class<?> type) {
        return new AvroDeserializer<>(registry, (Class<SpecificRecord>) type, false);
    }
}
