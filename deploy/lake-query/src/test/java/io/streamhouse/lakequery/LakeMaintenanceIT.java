package io.streamhouse.lakequery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lake's maintenance in the query service's JVM against the real sink on the shared platform: records land in
 * several sink commits, one pass (asked for over HTTP) compacts, expires and cleans up, then more records land. The
 * table must have fewer data files, its old snapshots gone but the sink's newest commit still an ancestor of the
 * current snapshot (the coordinator's exactly-once bookkeeping), an orphan older than the orphan age deleted and a
 * fresh one (as a file the sink has written but not yet committed) kept; and every committed record still lands
 * exactly once. Rows are counted through Iceberg scans, never by listing files.
 */
class LakeMaintenanceIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = "maintit-" + UUID.randomUUID().toString().substring(0, 8);
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    private static final Duration LANDING = Duration.ofSeconds(90);

    record Coordinate(int partition, long offset) {
    }

    @Test
    void compactionExpiryAndOrphanCleanUpKeepEveryRecordExactlyOnce() throws Exception {
        EmbeddedPlatform platform = SharedPlatform.get();
        platform.lake();
        Map<String, String> props = platform.lakeCatalog();
        Catalog catalog = CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, props, new org.apache.hadoop.conf.Configuration());
        TableIdentifier id = TableIdentifier.of(LakeNames.NAMESPACE, LakeNames.tableName(Topics.TRANSACTION_DECISIONS.name()));
        Path dir = Files.createDirectories(Path.of("target", "lake-maintenance-it", RUN)).toAbsolutePath();
        // Expire everything but the newest snapshot, so that only the sink guard can keep the sink's commit.
        MaintenanceSettings settings = new MaintenanceSettings(true, Duration.ofHours(1), Duration.ZERO, 1,
                MaintenanceSettings.DEFAULTS.targetFileSizeBytes(), Duration.ofHours(24));
        LakeQueryOptions.Lake lake = new LakeQueryOptions.Lake(props.get("uri"), props.get("jdbc.user"), props.get("jdbc.password"),
                props.get("warehouse"));
        try (LakeQueryProcess service = LakeQueryProcess.start(LakeQueryOptions.of(dir.resolve("engine"), platform.bootstrapServers(),
                platform.schemaRegistryUrl().toString(), Optional.of(lake)).withMaintenance(settings));
             KafkaProducer<String, TransactionDecision> producer = producer(platform)) {
            producer.initTransactions();
            // Four transactions, each awaited in the table, so that they land in separate sink commits (separate files).
            for (int round = 0; round < 4; round++) {
                produce(producer, round, 25);
                awaitExactlyOnce(platform, catalog, id);
            }
            Table table = catalog.loadTable(id);
            int filesBefore = LakeMaintenance.dataFiles(table);
            Set<Long> snapshotsBefore = snapshotIds(table);
            assertThat(filesBefore).as("data files before maintenance").isGreaterThanOrEqualTo(4);
            assertThat(snapshotsBefore.size()).isGreaterThanOrEqualTo(4);

            Path dataDir = Path.of(URI.create(table.location())).resolve("data");
            Files.createDirectories(dataDir);
            Path oldOrphan = Files.writeString(dataDir.resolve(RUN + "-old-orphan.parquet"), "left by a killed writer");
            Files.setLastModifiedTime(oldOrphan, FileTime.from(Instant.now().minus(Duration.ofHours(48))));
            Path inFlight = Files.writeString(dataDir.resolve(RUN + "-in-flight.parquet"), "written, not yet committed");

            service.awaitReady(Duration.ofSeconds(120));
            JsonNode report = runMaintenance(service.url());
            JsonNode decisions = tableReport(report, id);
            assertThat(decisions.get("error").isNull()).as("maintenance of " + id + ": " + decisions).isTrue();

            table.refresh();
            assertThat(LakeMaintenance.dataFiles(table)).as("data files after compaction").isLessThan(filesBefore);
            assertThat(decisions.get("filesRewritten").asInt()).isGreaterThanOrEqualTo(2);
            Set<Long> after = snapshotIds(table);
            Set<Long> survivors = new HashSet<>(snapshotsBefore);
            survivors.retainAll(after);
            assertThat(survivors).as("old snapshots expired: at most the sink's newest commit survives").hasSizeLessThanOrEqualTo(1);
            assertThat(after.size()).isLessThan(snapshotsBefore.size());
            assertThat(LakeMaintenance.sinkCommitDepth(table))
                    .as("the sink's newest commit is still an ancestor of the current snapshot (its offsets are found)")
                    .isGreaterThan(0);
            assertThat(oldOrphan).as("orphan older than the orphan age").doesNotExist();
            assertThat(inFlight).as("fresh file, as one the sink has not committed yet").exists();
            assertThat(decisions.get("orphansDeleted").asInt()).isEqualTo(1);

            // The sink goes on landing on top of the maintained table, exactly once.
            for (int round = 4; round < 6; round++) {
                produce(producer, round, 25);
            }
            awaitExactlyOnce(platform, catalog, id);
            assertThat(landed(catalog, id)).hasSizeGreaterThanOrEqualTo(150);
            Files.deleteIfExists(inFlight);
        } finally {
            if (catalog instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    private static JsonNode runMaintenance(URI service) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(service.resolve("/v1/maintenance"))
                .timeout(Duration.ofMinutes(3)).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).get("lastRun");
    }

    private static JsonNode tableReport(JsonNode run, TableIdentifier id) {
        for (JsonNode t : run.get("tables")) {
            if (t.get("table").asText().equals(id.toString())) {
                return t;
            }
        }
        throw new AssertionError("no report for " + id + " in " + run);
    }

    private static void awaitExactlyOnce(EmbeddedPlatform platform, Catalog catalog, TableIdentifier id) {
        await().atMost(LANDING).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Set<Coordinate> expected = readCommitted(platform, Topics.TRANSACTION_DECISIONS.name());
            List<Coordinate> landed = landed(catalog, id);
            assertThat(new HashSet<>(landed)).isEqualTo(expected);
            assertThat(landed).as("no duplicate rows").doesNotHaveDuplicates();
        });
    }

    private static Set<Long> snapshotIds(Table table) {
        Set<Long> ids = new HashSet<>();
        for (Snapshot s : table.snapshots()) {
            ids.add(s.snapshotId());
        }
        return ids;
    }

    private static KafkaProducer<String, TransactionDecision> producer(EmbeddedPlatform platform) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, RUN);
        CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        return new KafkaProducer<>(p, new StringSerializer(), new AvroSerializer<>(registry, TransactionDecision.class, false));
    }

    private static void produce(KafkaProducer<String, TransactionDecision> producer, int round, int count) {
        producer.beginTransaction();
        for (int i = 0; i < count; i++) {
            String tx = RUN + "-" + round + "-" + i;
            producer.send(new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), tx, TransactionDecision.newBuilder()
                    .setEnvelope(SampleEvents.envelope("evt-" + tx, tx, T0, TransactionDecision.class))
                    .setTransactionId(tx).setCardToken("tok-" + tx).setCustomerId(null).setOutcome(DecisionOutcome.ALLOW)
                    .setReasons(List.of()).setRuleSetVersion(1).setRequestedAt(T0).setDecisionLatencyMillis(3).build()));
        }
        producer.commitTransaction();
    }

    /** Every row's (partition, offset) in the table's current snapshot, through an Iceberg scan. */
    private static List<Coordinate> landed(Catalog catalog, TableIdentifier id) throws Exception {
        Table t = catalog.loadTable(id);
        List<Coordinate> out = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).select(LakeNames.PARTITION_COLUMN, LakeNames.OFFSET_COLUMN).build()) {
            for (Record r : rows) {
                out.add(new Coordinate((Integer) r.getField(LakeNames.PARTITION_COLUMN), (Long) r.getField(LakeNames.OFFSET_COLUMN)));
            }
        }
        return out;
    }

    /** What a read_committed consumer reads of {@code topic}, up to its end now. */
    private static Set<Coordinate> readCommitted(EmbeddedPlatform platform, String topic) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Set<Coordinate> out = new HashSet<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end " + end + " within 30 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (r.value() != null) {
                        out.add(new Coordinate(r.partition(), r.offset()));
                    }
                });
            }
            return out;
        }
    }
}
