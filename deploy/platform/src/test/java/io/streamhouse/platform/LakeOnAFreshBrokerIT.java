package io.streamhouse.platform;

import io.streamhouse.broker.BrokerOptions;
import io.streamhouse.broker.BrokerProcess;
import io.streamhouse.connect.ConnectOptions;
import io.streamhouse.connect.ConnectProcess;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.event.ReviewOutcome;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.lake.LakeAudit;
import io.streamhouse.lake.LakeAudit.Coordinate;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
import io.streamhouse.registry.RegistryConfig;
import io.streamhouse.registry.SchemaRegistryServer;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The trap of issue #18, for real: a fresh broker (new cluster id, new data directory) with the warehouse and catalog
 * an earlier broker's sink wrote must still land every record, once. Broker A is the shared platform's; its sink
 * lands records, then is removed (the shared broker itself keeps serving the other tests). Broker B is a child JVM of
 * this test with its own schema registry and Connect worker, pointed at the same catalog and warehouse. A's
 * coordinator recorded its control-topic position in the table's snapshot summary; B's control topic starts again at
 * offset 0, so with one control-topic name for both clusters B's announcements would be filtered out as already
 * committed and B's records lost.
 *
 * <p>Both brokers number their records from offset 0, so rows are told apart by their transaction id.
 */
@WithStreamhousePlatform
class LakeOnAFreshBrokerIT {

    private static final String TOPIC = Topics.REVIEW_OUTCOMES.name();
    private static final TableIdentifier TABLE = TableIdentifier.of(LakeNames.NAMESPACE, LakeNames.tableName(TOPIC));
    private static final Duration LANDING = Duration.ofSeconds(90);
    private static final int RECORDS = 20;
    private static final int HISTORY = 1_000;

    @Test
    void aFreshBrokerWithTheOldWarehouseLandsItsRecordsOnce(EmbeddedPlatform platform) throws Exception {
        platform.lake();
        long t0 = System.nanoTime();
        Map<String, String> catalogProperties = platform.lakeCatalog();
        try (JdbcCatalog catalog = (JdbcCatalog) CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, catalogProperties,
                new org.apache.hadoop.conf.Configuration())) {
            // Broker A: its sink lands a batch, then stops.
            String clusterA = LakeControl.clusterId(platform.bootstrapServers());
            age(platform.bootstrapServers(), LakeConnector.controlTopicOf(clusterA));
            Set<Coordinate> sentToA = produce(platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), "fresh-a-");
            await().atMost(LANDING).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertThat(landed(catalog, "fresh-a-")).containsExactlyInAnyOrderElementsOf(sentToA));
            long positionA = recordedPosition(catalog.loadTable(TABLE), LakeConnector.controlTopicOf(clusterA));
            assertThat(platform.stopLake()).as("A's sink removed").isTrue();

            // Broker B: new cluster, same catalog and warehouse. Its records wait on the topic before its sink starts,
            // so they are announced in B's first commit rounds, at control offsets below A's recorded position.
            Path dir = TestDirs.fresh("fresh-broker");
            try (BrokerProcess brokerB = BrokerProcess.start(BrokerOptions.ephemeral(dir.resolve("kafka")));
                 SchemaRegistryServer registryB = SchemaRegistryServer.start(RegistryConfig.of(brokerB.bootstrapServers()).withPort(0))) {
                String b = brokerB.bootstrapServers();
                String clusterB = LakeControl.clusterId(b);
                assertThat(clusterB).isNotEqualTo(clusterA);
                TopicProvisioner.ensure(b, List.of(Topics.REVIEW_OUTCOMES));
                Set<Coordinate> sentToB = produce(b, registryB.url().toString(), "fresh-b-");

                LakeConnector.Settings settings = new LakeConnector.Settings(catalogProperties, b, registryB.url().toString(),
                        clusterB, List.of(TOPIC));
                LakeControl.prepare(b, settings.controlTopic());
                // The resources close before the finally: B's sink has stopped when its files are removed.
                try (ConnectProcess workerB = ConnectProcess.start(ConnectOptions.of(dir.resolve("connect"), b, registryB.url().toString()))) {
                    workerB.putConnector(LakeConnector.NAME, LakeConnector.config(settings));
                    workerB.awaitRunning(LakeConnector.NAME, Duration.ofSeconds(60));
                    await().atMost(LANDING).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                        LakeAudit.TopicAudit audit = LakeAudit.compare(TOPIC, landed(catalog, "fresh-b-"),
                                LakeAudit.readCommitted(b, TOPIC, Duration.ofSeconds(30)), Set.of());
                        assertThat(audit.equal()).as("B's records in Iceberg exactly once: %s", audit).isTrue();
                    });
                    // The trap was armed: had both clusters shared one control-topic name, B's data (announced below
                    // the position A recorded) would have been skipped.
                    long positionB = recordedPosition(catalog.loadTable(TABLE), settings.controlTopic());
                    System.out.printf("control positions recorded: A (%s) %d, B (%s) %d%n", clusterA, positionA, clusterB, positionB);
                    assertThat(positionB).as("B's control position at its commit vs A's (%d)", positionA).isLessThanOrEqualTo(positionA);
                } finally {
                    removeCommitsOf(catalog.loadTable(TABLE), settings.controlTopic());
                }
            }
            // A's rows are still there, each once.
            assertThat(landed(catalog, "fresh-a-")).containsExactlyInAnyOrderElementsOf(sentToA);
        }
        System.out.printf("fresh-broker test after the shared lake was up: %d s%n", Duration.ofNanos(System.nanoTime() - t0).toSeconds());
    }

    /**
     * Moves the control topic's offsets {@value #HISTORY} ahead, as the history of a long-lived cluster does (a
     * sink committing every second writes a few hundred thousand control records a day): one aborted transaction,
     * which the sink's read_committed consumers never see but whose offsets their positions pass. Without it A's
     * recorded position after a short run (23 measured) barely exceeds what B reaches before its first data commit
     * (16), and the test would stop telling the two names apart.
     */
    private static void age(String bootstrap, String controlTopic) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "lake-fresh-broker-it-" + ProcessHandle.current().pid()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < HISTORY; i++) {
                producer.send(new ProducerRecord<>(controlTopic, new byte[0]));
            }
            producer.flush();
            producer.abortTransaction();
        }
    }

    /** {@value #RECORDS} review outcomes with transaction ids {@code prefix0..}; their coordinates on the topic. */
    private static Set<Coordinate> produce(String bootstrap, String registryUrl, String prefix) throws Exception {
        Set<Coordinate> sent = new HashSet<>();
        try (CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(registryUrl);
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                     ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            AvroSerializer<ReviewOutcomeRecorded> serializer = new AvroSerializer<>(registry, ReviewOutcomeRecorded.class, false);
            for (int i = 0; i < RECORDS; i++) {
                ReviewOutcomeRecorded review = SampleEvents.reviewOutcome("rev-" + prefix + i, prefix + i, "card-" + prefix + i,
                        ReviewOutcome.LEGITIMATE, Times.T0);
                var m = producer.send(new ProducerRecord<>(TOPIC, review.getCardToken(), serializer.serialize(TOPIC, review))).get();
                sent.add(new Coordinate(m.partition(), m.offset()));
            }
        }
        return sent;
    }

    /** (partition, offset) of every row whose transaction id starts with {@code prefix}, through an Iceberg scan. */
    private static List<Coordinate> landed(JdbcCatalog catalog, String prefix) {
        List<Coordinate> out = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(catalog.loadTable(TABLE))
                .select("transactionId", LakeNames.PARTITION_COLUMN, LakeNames.OFFSET_COLUMN).build()) {
            for (Record r : rows) {
                if (((String) r.getField("transactionId")).startsWith(prefix)) {
                    out.add(new Coordinate((Integer) r.getField(LakeNames.PARTITION_COLUMN), (Long) r.getField(LakeNames.OFFSET_COLUMN)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /**
     * Deletes the data files that {@code controlTopic}'s coordinator appended. B's rows carry B's offsets, which
     * A's topic has too: the other lake ITs audit this table against A's topic on the same shared platform.
     */
    private static void removeCommitsOf(Table table, String controlTopic) {
        String key = "kafka.connect.offsets." + controlTopic + "." + LakeConnector.connectGroup();
        DeleteFiles delete = table.newDelete();
        int files = 0;
        for (Snapshot s : table.snapshots()) {
            if (s.summary().containsKey(key)) {
                for (DataFile f : s.addedDataFiles(table.io())) {
                    delete.deleteFile(f);
                    files++;
                }
            }
        }
        if (files > 0) {
            delete.commit();
        }
    }

    /**
     * The control-topic position a coordinator recorded with its newest commit to {@code table}, as the sink reads it
     * back (summary {@code kafka.connect.offsets.<control topic>.<group>}, newest snapshot first).
     */
    private static long recordedPosition(Table table, String controlTopic) {
        String key = "kafka.connect.offsets." + controlTopic + "." + LakeConnector.connectGroup();
        for (Snapshot s = table.currentSnapshot(); s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            String json = s.summary().get(key);
            if (json != null) {
                return Long.parseLong(json.replaceAll("[^0-9:,]", "").split(":")[1].split(",")[0]);
            }
        }
        throw new AssertionError("no commit of " + controlTopic + " in " + table.name());
    }
}
