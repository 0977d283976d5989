package io.streamhouse.platform;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Launcher mode: a second start on the same data directory serves the first run's topics, records and tables, and
 * its lake runs again. The second start is the trap of session 14: the Connect worker resumes the lake connector the
 * first run registered, with that run's catalog URL, and the embedded PostgreSQL came back on another port, so the
 * sink's task fails before the new configuration is put; the platform must restart it (every second {@code up} with
 * the lake failed with "connector lake failed" before it did).
 */
class PlatformRestartIT {

    private static final String TOPIC = "it.restart.events";

    @Test
    void topicsRecordsAndTablesSurviveARestart() throws Exception {
        // Launcher mode, except a free Kafka port: 9092 may belong to someone else's launcher on this machine.
        PlatformOptions options = PlatformOptions.forLauncher(TestDirs.fresh("restart"))
                .withKafkaPort(0)
                .withPostgresBinariesDir(null) // share the build's unpacked binaries instead of unpacking 14 MB again
                .withPostgresMode(PlatformOptions.PostgresMode.EMBEDDED);

        String firstCatalogUrl;
        try (EmbeddedPlatform first = EmbeddedPlatform.start(options)) {
            first.lake();
            firstCatalogUrl = first.postgres().jdbcUrl();
            try (Admin admin = admin(first)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, first.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(TOPIC, 1, "parcel-7", "scanned-at-rotterdam")).get(30, TimeUnit.SECONDS);
            }
            try (Connection c = first.postgres().connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE streamhouse.restart_probe (id int PRIMARY KEY, note text)");
                s.execute("INSERT INTO streamhouse.restart_probe VALUES (1, 'kept')");
            }
        }

        try (EmbeddedPlatform second = EmbeddedPlatform.start(options)) {
            try (Admin admin = admin(second)) {
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(TOPIC);
                assertThat(admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(TOPIC).partitions()).hasSize(2);
            }
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, second.bootstrapServers()),
                    new StringDeserializer(), new StringDeserializer())) {
                TopicPartition partition = new TopicPartition(TOPIC, 1);
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                List<ConsumerRecord<String, String>> records = Polling.atLeast(consumer, 1, Duration.ofSeconds(30));
                assertThat(records).extracting(ConsumerRecord::value).containsExactly("scanned-at-rotterdam");
            }
            try (Connection c = second.postgres().connect(); Statement s = c.createStatement()) {
                assertThat(EmbeddedPostgresIT.single(s, "SELECT note FROM streamhouse.restart_probe WHERE id = 1"))
                        .isEqualTo("kept");
            }
            assertThat(options.dataDir().resolve("kafka").resolve("broker.log"))
                    .content().contains("storage already formatted");
            assertThat(second.postgres().jdbcUrl()).as("the case this start must survive: the catalog moved")
                    .isNotEqualTo(firstCatalogUrl);
            second.lake(); // returns once the sink's task runs and has completed a commit round; throws if it failed
        }
    }

    private static Admin admin(EmbeddedPlatform platform) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()));
    }
}
