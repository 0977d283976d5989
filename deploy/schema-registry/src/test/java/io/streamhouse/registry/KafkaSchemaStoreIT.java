package io.streamhouse.registry;

import static io.streamhouse.registry.RegistryHttp.schemaBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.registry.RegistryHttp.Answer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The registry on a real (in-process KRaft) broker: what it answered must survive a restart. */
@Timeout(120)
class KafkaSchemaStoreIT {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopKafka() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static RegistryConfig config(String topic) {
        return RegistryConfig.of(kafka.bootstrapServers()).withPort(0).withTopic(topic);
    }

    /** Everything a client could read back, as raw JSON bodies keyed by request. */
    private static Map<String, String> snapshot(RegistryHttp http, List<String> paths) {
        Map<String, String> answers = new LinkedHashMap<>();
        for (String path : paths) {
            Answer answer = http.get(path);
            answers.put(path, answer.status() + " " + answer.body());
        }
        return answers;
    }

    @Test
    void everythingSurvivesARestartOnTheSameTopic() {
        String topic = "_schemas_restart";
        Map<String, String> before;
        List<String> paths = List.of("/subjects", "/subjects?deleted=true",
                "/subjects/parcels-value/versions", "/subjects/parcels-value/versions?deleted=true",
                "/subjects/parcels-value/versions/1?deleted=true", "/subjects/parcels-value/versions/latest",
                "/subjects/archive-value/versions/1", "/subjects/hubs-value/versions?deleted=true",
                "/schemas/ids/1", "/schemas/ids/2", "/schemas/ids/3", "/schemas/ids/4",
                "/schemas/ids/1/versions?deleted=true", "/config", "/config/parcels-value", "/config/hubs-value");
        try (SchemaRegistryServer first = SchemaRegistryServer.start(config(topic))) {
            RegistryHttp http = new RegistryHttp(first.url());
            assertThat(http.register("parcels-value", Schemas.PARCEL_V1)).isEqualTo(1);
            assertThat(http.register("parcels-value", Schemas.PARCEL_V2_WITH_DEFAULT)).isEqualTo(2);
            assertThat(http.register("archive-value", Schemas.PARCEL_V1)).as("global id reuse").isEqualTo(1);
            assertThat(http.register("hubs-value", Schemas.HUB)).isEqualTo(3);
            assertThat(http.register("scans-value", Schemas.SCAN)).isEqualTo(4);
            assertThat(http.put("/config", "{\"compatibility\":\"BACKWARD_TRANSITIVE\"}").status()).isEqualTo(200);
            assertThat(http.put("/config/parcels-value", "{\"compatibility\":\"FULL\"}").status()).isEqualTo(200);
            assertThat(http.delete("/subjects/parcels-value/versions/1").body()).isEqualTo("1");
            assertThat(http.delete("/subjects/hubs-value").body()).isEqualTo("[1]");
            assertThat(http.delete("/subjects/scans-value").status()).isEqualTo(200);
            assertThat(http.delete("/subjects/scans-value?permanent=true").body()).isEqualTo("[1]");
            before = snapshot(http, paths);
        }

        try (SchemaRegistryServer second = SchemaRegistryServer.start(config(topic))) {
            RegistryHttp http = new RegistryHttp(second.url());

            assertThat(snapshot(http, paths)).isEqualTo(before);
            assertThat(before.get("/subjects")).isEqualTo("200 [\"archive-value\",\"parcels-value\"]");
            assertThat(before.get("/subjects/parcels-value/versions")).isEqualTo("200 [2]");
            assertThat(before.get("/config")).isEqualTo("200 {\"compatibilityLevel\":\"BACKWARD_TRANSITIVE\"}");
            assertThat(before.get("/config/parcels-value")).isEqualTo("200 {\"compatibilityLevel\":\"FULL\"}");
            assertThat(before.get("/schemas/ids/4")).startsWith("404 ");

            assertThat(http.register("parcels-value", Schemas.PARCEL_V2_WITH_DEFAULT))
                    .as("idempotent across restarts").isEqualTo(2);
            assertThat(http.get("/subjects/parcels-value/versions").body()).isEqualTo("[2]");
            assertThat(http.register("scans-value", Schemas.SCAN.replace("Scan", "ScanV2")))
                    .as("id 4 was hard-deleted, never handed out again").isEqualTo(5);
            assertThat(http.get("/subjects/scans-value/versions").body()).isEqualTo("[1]");
        }
    }

    @Test
    void theTopicIsCompactedSinglePartitionJsonWithTombstonesForHardDeletes() throws Exception {
        String topic = "_schemas_layout";
        try (SchemaRegistryServer server = SchemaRegistryServer.start(config(topic))) {
            RegistryHttp http = new RegistryHttp(server.url());
            http.register("parcels-value", Schemas.PARCEL_V1);
            http.delete("/subjects/parcels-value");
            http.delete("/subjects/parcels-value?permanent=true");
        }

        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()).hasSize(1);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
            assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo("compact");
        }

        List<String> log = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : readAll(topic)) {
            log.add(new String(record.key(), StandardCharsets.UTF_8) + " => "
                    + (record.value() == null ? "<tombstone>" : new String(record.value(), StandardCharsets.UTF_8)));
        }
        assertThat(log).hasSize(5);
        assertThat(log.get(0)).startsWith("{\"keytype\":\"SCHEMA\",\"subject\":\"parcels-value\",\"version\":1,")
                .contains("\"id\":1", "\"deleted\":false");
        assertThat(log.get(1)).startsWith("{\"keytype\":\"DELETE_SUBJECT\"");
        assertThat(log.get(2)).startsWith("{\"keytype\":\"ID_WATERMARK\"").endsWith("{\"maxId\":1}");
        assertThat(log.get(3)).startsWith("{\"keytype\":\"SCHEMA\",\"subject\":\"parcels-value\",\"version\":1,")
                .endsWith("<tombstone>");
        assertThat(log.get(4)).startsWith("{\"keytype\":\"DELETE_SUBJECT\"").endsWith("<tombstone>");
    }

    @Test
    void aTopicThatWouldLoseSchemasIsRefused() throws Exception {
        String topic = "_schemas_with_retention";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE))))
                    .all().get();
        }

        assertThatThrownBy(() -> SchemaRegistryServer.start(config(topic)))
                .isInstanceOf(SchemaStoreException.class)
                .hasMessageContaining("cleanup.policy=delete");
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        TopicPartition partition = new TopicPartition(topic, 0);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(Set.of(partition));
            consumer.seekToBeginning(Set.of(partition));
            long end = consumer.endOffsets(Set.of(partition)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
