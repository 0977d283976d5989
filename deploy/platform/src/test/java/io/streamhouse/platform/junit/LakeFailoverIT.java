package io.streamhouse.platform.junit;

import io.streamhouse.connect.ConnectProcess;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.lake.LakeAudit;
import io.streamhouse.lake.LakeAudit.Coordinate;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exactly once across a {@code kill -9} of the Connect worker: once while the sink is writing a batch, once inside
 * the first commit interval after the worker came back. Afterwards the table holds exactly the records a
 * read_committed consumer reads, each once. Counted through Iceberg scans, never by listing files (a killed writer
 * leaves orphan files).
 */
@WithStreamhousePlatform
class LakeFailoverIT {

    private static final String TOPIC = Topics.TRANSACTION_REQUESTS.name();

    @Test
    void killedWorkersNeitherLoseNorDoubleARow(EmbeddedPlatform platform) throws Exception {
        ConnectProcess worker = platform.lake();
        AtomicInteger sent = new AtomicInteger();
        try (CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all",
                     ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new ByteArraySerializer())) {
            AvroSerializer<TransactionAuthorizationRequested> serializer =
                    new AvroSerializer<>(registry, TransactionAuthorizationRequested.class, false);
            // Mid-batch: records keep arriving while the worker dies.
            CompletableFuture<Void> traffic = CompletableFuture.runAsync(() -> produce(producer, serializer, "a", 3_000, sent));
            await().atMost(Duration.ofSeconds(60)).until(() -> sent.get() >= 1_000);
            worker.kill();
            traffic.join();

            // Inside the first commit interval: the new worker's connector task runs, a batch arrives, and the worker
            // dies again while lake() still waits for the new coordinator's first commit.
            CompletableFuture<ConnectProcess> restarting = CompletableFuture.supplyAsync(platform::lake);
            await().atMost(Duration.ofSeconds(90)).until(() -> platform.connectWorker()
                    .map(w -> w.status(LakeConnector.NAME)).filter(LakeFailoverIT::taskRunning).isPresent());
            ConnectProcess second = platform.connectWorker().orElseThrow();
            produce(producer, serializer, "b", 500, sent);
            second.kill();
            // lake() fails when the worker died before its sink's first commit (the case aimed at); a commit that came
            // first anyway is a mid-stream kill: both must keep every row exactly once.
            boolean killedBeforeFirstCommit = restarting.handle((w, e) -> e != null).get(120, TimeUnit.SECONDS);
            System.out.println("second kill before the new coordinator's first commit: " + killedBeforeFirstCommit);

            platform.lake();
            produce(producer, serializer, "c", 200, sent);
            producer.flush();
        }

        try (JdbcCatalog catalog = (JdbcCatalog) CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, platform.lakeCatalog(),
                new org.apache.hadoop.conf.Configuration())) {
            TableIdentifier table = TableIdentifier.of(LakeNames.NAMESPACE, LakeNames.tableName(TOPIC));
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                List<Coordinate> landed = LakeAudit.landed(catalog, TOPIC);
                LakeAudit.TopicAudit audit = LakeAudit.compare(TOPIC, landed,
                        LakeAudit.readCommitted(platform.bootstrapServers(), TOPIC, Duration.ofSeconds(30)), Set.of());
                assertThat(audit.equal()).as("Iceberg equals Kafka, no duplicate rows: %s", audit).isTrue();
            });
        }
        assertThat(sent.get()).isEqualTo(3_700);
        assertThat(platform.lake().status(LakeConnector.NAME)).doesNotContain("FAILED");
    }

    private static boolean taskRunning(String status) {
        int tasks = status.indexOf("\"tasks\"");
        return tasks > 0 && status.substring(tasks).contains("\"RUNNING\"");
    }

    private static void produce(KafkaProducer<String, byte[]> producer, AvroSerializer<TransactionAuthorizationRequested> serializer,
                                String run, int count, AtomicInteger sent) {
        for (int i = 0; i < count; i++) {
            String id = "failover-" + run + "-" + i;
            TransactionAuthorizationRequested tx = SampleEvents.transaction(id, "card-" + (i % 17), "10.00", "EUR",
                    Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(i));
            producer.send(new ProducerRecord<>(TOPIC, tx.getCardToken(), serializer.serialize(TOPIC, tx)),
                    (m, e) -> {
                        if (e == null) {
                            sent.incrementAndGet();
                        }
                    });
        }
        producer.flush();
    }
}
