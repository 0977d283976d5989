package io.streamhouse.platform.junit;

import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The platform creates the catalog's topics as declared, and the wire format behaves on the real broker and registry. */
@WithStreamhousePlatform
class CatalogOnThePlatformIT {

    @Test
    void everyCatalogTopicExistsWithItsPartitionsAndConfigs(EmbeddedPlatform platform) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()))) {
            Set<String> names = Topics.allWithDeadLetters().stream().map(Topic::name).collect(Collectors.toSet());
            var described = admin.describeTopics(names).allTopicNames().get();
            var configs = admin.describeConfigs(names.stream()
                    .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList()).all().get();
            for (Topic<?, ?> t : Topics.allWithDeadLetters()) {
                assertThat(described.get(t.name()).partitions()).as(t.name()).hasSize(t.partitions());
                var c = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, t.name()));
                t.configs().forEach((k, v) -> assertThat(c.get(k).value()).as(t.name() + " " + k).isEqualTo(v));
            }
        }
    }

    /**
     * The query service's start reads the lake's catalog while the lake's and CDC's connectors start, which hold the
     * platform for tens of seconds ({@code lake()}, {@code cdc()}): waiting for them made {@code up} late by as much.
     */
    @Test
    void theLakeCatalogIsAnsweredWhileAConnectorStarts(EmbeddedPlatform platform) throws Exception {
        Map<String, String> catalog = platform.lakeCatalog();
        synchronized (platform) { // what lake() and cdc() hold while their connectors start
            var during = java.util.concurrent.CompletableFuture.supplyAsync(platform::lakeCatalog);
            assertThat(during.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(catalog);
        }
    }

    @Test
    void anUnreadableRecordNamesTopicPartitionOffsetAndSchemaIdAndTheConsumerGoesOn(EmbeddedPlatform platform) throws Exception {
        var client = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        String topic = Topics.RULES.name();
        RuleDefinition good = DefaultRules.definitions().get(0);
        byte[] goodBytes = new AvroSerializer<>(client, RuleDefinition.class, false).serialize(topic, good);
        byte[] unknownSchema = WireFormat.frame(987_654, new byte[]{2, 4, 6});
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, "bad-rule", unknownSchema)).get();
            producer.send(new ProducerRecord<>(topic, good.getRuleId(), goodBytes)).get();
        }

        List<RuleDefinition> read = new ArrayList<>();
        RecordDeserializationException failure = null;
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "unreadable-record-check",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new AvroDeserializer<>(client, RuleDefinition.class, false))) {
            consumer.subscribe(List.of(topic));
            long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read.stream().noneMatch(r -> r.getRuleId().equals(good.getRuleId())) && System.nanoTime() < until) {
                try {
                    for (ConsumerRecord<String, RuleDefinition> r : consumer.poll(Duration.ofMillis(200))) {
                        read.add(r.value());
                    }
                } catch (RecordDeserializationException e) {
                    failure = e;
                    // What a dead-letter step does: note it, then move past that one record.
                    consumer.seek(e.topicPartition(), e.offset() + 1);
                }
            }
        }
        assertThat(failure).as("the unreadable record is reported, not skipped silently").isNotNull();
        assertThat(failure.topicPartition().topic()).isEqualTo(topic);
        assertThat(failure.getMessage()).contains(topic).contains(Long.toString(failure.offset()));
        assertThat(failure.getCause().getMessage()).contains("987654").contains(topic);
        assertThat(read).extracting(RuleDefinition::getRuleId).contains(good.getRuleId());
    }
}
