package io.streamhouse.lakequery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The query service in its own JVM against the shared platform: a Kafka topic read as a table (read_committed,
 * bounded), an Iceberg table created with Iceberg's own Java API (current snapshot and time travel), and every refusal:
 * non-queries, malformed SQL, the row cap and the timeout.
 */
class SnapshotSqlIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = "sqlit-" + UUID.randomUUID().toString().substring(0, 8);
    private static final int DECISIONS = 200;
    private static final String DECISIONS_TABLE = "kafka.streamhouse.payments_transactions_decisions";
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

    private static EmbeddedPlatform platform;
    private static LakeQueryProcess engine;
    private static Catalog iceberg;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Map<DecisionOutcome, Long> PRODUCED = new EnumMap<>(DecisionOutcome.class);
    private static String icebergTable;
    private static long firstSnapshot;
    private static long firstSnapshotMillis;
    private static long secondSnapshot;

    @BeforeAll
    static void start() throws Exception {
        platform = SharedPlatform.get();
        produceDecisions();
        Path dir = Files.createDirectories(Path.of("target", "lake-query-it", RUN)).toAbsolutePath();
        // The platform's lake catalog schema, not PostgreSQL's default one: JdbcCatalog looks for its tables by name in any
        // schema, so catalog tables in "public" would hide the missing ones of the sink's schema from LakeMaintenanceIT.
        LakeQueryOptions.Lake lake = new LakeQueryOptions.Lake(platform.lakeCatalog().get("uri"), platform.postgres().user(),
                platform.postgres().password(), dir.resolve("lake").toUri().toString());
        createIcebergTable(lake);
        engine = LakeQueryProcess.start(LakeQueryOptions.of(dir.resolve("engine"), platform.bootstrapServers(),
                platform.schemaRegistryUrl().toString(), java.util.Optional.of(lake)));
        engine.awaitReady(Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop() throws Exception {
        if (engine != null) {
            engine.close();
        }
        if (iceberg instanceof AutoCloseable c) {
            c.close();
        }
    }

    /** 200 decisions committed in one transaction, and 20 more in a transaction that is aborted. */
    private static void produceDecisions() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, RUN);
        CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        try (KafkaProducer<String, TransactionDecision> producer = new KafkaProducer<>(p, new StringSerializer(),
                new AvroSerializer<>(registry, TransactionDecision.class, false))) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < DECISIONS; i++) {
                DecisionOutcome outcome = i % 10 == 0 ? DecisionOutcome.BLOCK : i % 4 == 0 ? DecisionOutcome.REVIEW : DecisionOutcome.ALLOW;
                PRODUCED.merge(outcome, 1L, Long::sum);
                String id = RUN + "-" + i;
                producer.send(new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), id, decision(id, outcome)));
            }
            producer.commitTransaction();
            producer.beginTransaction();
            for (int i = 0; i < 20; i++) {
                String id = RUN + "-aborted-" + i;
                producer.send(new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), id, decision(id, DecisionOutcome.BLOCK)));
            }
            producer.flush();
            producer.abortTransaction();
        }
    }

    private static TransactionDecision decision(String id, DecisionOutcome outcome) {
        return TransactionDecision.newBuilder()
                .setEnvelope(SampleEvents.envelope("evt-" + id, id, T0, TransactionDecision.class))
                .setTransactionId(id).setCardToken("tok-" + id).setCustomerId(null).setOutcome(outcome)
                .setReasons(List.of()).setRuleSetVersion(1).setRequestedAt(T0).setDecisionLatencyMillis(3).build();
    }

    /** Two snapshots: two rows, then a third row appended. */
    private static void createIcebergTable(LakeQueryOptions.Lake lake) throws IOException {
        Map<String, String> props = new HashMap<>();
        props.put("uri", lake.jdbcUrl());
        props.put("jdbc.user", lake.user());
        if (lake.password() != null && !lake.password().isEmpty()) {
            props.put("jdbc.password", lake.password());
        }
        props.put("jdbc.schema-version", "V1");
        props.put("warehouse", lake.warehouse());
        iceberg = CatalogUtil.loadCatalog("org.apache.iceberg.jdbc.JdbcCatalog", "lake", props, new org.apache.hadoop.conf.Configuration());
        Namespace ns = Namespace.of("streamhouse");
        if (!((SupportsNamespaces) iceberg).namespaceExists(ns)) {
            ((SupportsNamespaces) iceberg).createNamespace(ns);
        }
        icebergTable = RUN.replace('-', '_') + "_decisions";
        Schema schema = new Schema(
                Types.NestedField.required(1, "transactionId", Types.StringType.get()),
                Types.NestedField.required(2, "outcome", Types.StringType.get()),
                Types.NestedField.optional(3, "amount", Types.DecimalType.of(19, 4)),
                Types.NestedField.required(4, "requestedAt", Types.TimestampType.withZone()),
                Types.NestedField.required(5, "_topic", Types.StringType.get()),
                Types.NestedField.required(6, "_partition", Types.IntegerType.get()),
                Types.NestedField.required(7, "_offset", Types.LongType.get()),
                Types.NestedField.required(8, "_kafka_timestamp", Types.TimestampType.withZone()));
        Table table = iceberg.createTable(TableIdentifier.of(ns, icebergTable), schema, PartitionSpec.unpartitioned());
        append(table, List.of(row(schema, "t-1", "ALLOW", "10.5000", 0), row(schema, "t-2", "BLOCK", "999.9900", 1)));
        table.refresh();
        firstSnapshot = table.currentSnapshot().snapshotId();
        firstSnapshotMillis = table.currentSnapshot().timestampMillis();
        append(table, List.of(row(schema, "t-3", "REVIEW", "1500.0000", 2)));
        table.refresh();
        secondSnapshot = table.currentSnapshot().snapshotId();
    }

    private static Record row(Schema schema, String id, String outcome, String amount, long offset) {
        GenericRecord r = GenericRecord.create(schema);
        OffsetDateTime at = OffsetDateTime.ofInstant(T0.plusSeconds(offset), ZoneOffset.UTC);
        r.setField("transactionId", id);
        r.setField("outcome", outcome);
        r.setField("amount", new BigDecimal(amount));
        r.setField("requestedAt", at);
        r.setField("_topic", Topics.TRANSACTION_DECISIONS.name());
        r.setField("_partition", 0);
        r.setField("_offset", offset);
        r.setField("_kafka_timestamp", at);
        return r;
    }

    private static void append(Table table, List<Record> records) throws IOException {
        OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet"));
        FileAppender<Record> appender = new GenericAppenderFactory(table.schema()).newAppender(out, FileFormat.PARQUET);
        try (appender) {
            appender.addAll(records);
        }
        DataFile file = DataFiles.builder(table.spec()).withPath(out.location()).withFileSizeInBytes(appender.length())
                .withMetrics(appender.metrics()).withFormat(FileFormat.PARQUET).build();
        table.newAppend().appendFile(file).commit();
    }

    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void decisionsPerOutcomeOverKafkaAgreeWithWhatWasCommitted() throws Exception {
        HttpResponse<String> answer = query("SELECT outcome, COUNT(*) AS n FROM " + DECISIONS_TABLE
                + " WHERE transactionId LIKE '" + RUN + "-%' GROUP BY outcome", null, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(answer.body());
        Map<String, Long> counted = new HashMap<>();
        body.get("rows").forEach(r -> counted.put(r.get(0).asText(), r.get(1).asLong()));
        Map<String, Long> expected = new HashMap<>();
        PRODUCED.forEach((o, n) -> expected.put(o.name(), n));
        // The aborted transaction's 20 BLOCKs are not counted: the table reads read_committed.
        assertThat(counted).isEqualTo(expected);
        assertThat(body.get("columns").get(1).get("type").asText()).isEqualTo("BIGINT NOT NULL");
        JsonNode kafka = body.get("readAt").get("kafka");
        assertThat(kafka).hasSize(Topics.TRANSACTION_DECISIONS.partitions());
        long ends = 0;
        for (JsonNode p : kafka) {
            assertThat(p.get("topic").asText()).isEqualTo(Topics.TRANSACTION_DECISIONS.name());
            ends += p.get("endOffset").asLong();
        }
        assertThat(ends).as("end offsets cover the committed and aborted records").isGreaterThanOrEqualTo(DECISIONS + 20);
    }

    @Test
    void nestedAndMetadataColumnsReadAsTyped() throws Exception {
        HttpResponse<String> answer = query("SELECT transactionId, envelope.occurredAt, requestedAt, _partition, _offset, _key FROM "
                + DECISIONS_TABLE + " WHERE transactionId = '" + RUN + "-7'", null, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode row = JSON.readTree(answer.body()).get("rows").get(0);
        assertThat(row.get(0).asText()).isEqualTo(RUN + "-7");
        assertThat(row.get(1).asText()).isEqualTo(T0.toString());
        assertThat(row.get(2).asText()).isEqualTo(T0.toString());
        assertThat(row.get(5).asText()).isEqualTo(RUN + "-7");
    }

    @Test
    void icebergTableReadsItsCurrentSnapshotAndTimeTravels() throws Exception {
        String table = "lake.streamhouse." + icebergTable;
        HttpResponse<String> now = query("SELECT transactionId, amount, requestedAt FROM " + table + " ORDER BY transactionId", null, null);
        assertThat(now.statusCode()).as(now.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(now.body());
        assertThat(body.get("rows")).hasSize(3);
        assertThat(body.get("rows").get(2).get(1).asText()).isEqualTo("1500.0000");
        assertThat(body.get("columns").get(2).get("type").asText()).startsWith("TIMESTAMP_LTZ(6)");
        assertThat(body.get("readAt").get("iceberg").get(0).get("snapshotId").asLong()).isEqualTo(secondSnapshot);
        assertThat(body.get("readAt").get("iceberg").get(0).get("pinnedBy").asText()).isEqualTo("current");

        HttpResponse<String> byId = query("SELECT transactionId FROM " + table + " /*+ OPTIONS('snapshot-id'='" + firstSnapshot
                + "') */ ORDER BY transactionId", null, null);
        assertThat(byId.statusCode()).as(byId.body()).isEqualTo(200);
        JsonNode earlier = JSON.readTree(byId.body());
        assertThat(earlier.get("rows").toString()).isEqualTo("[[\"t-1\"],[\"t-2\"]]");
        assertThat(earlier.get("readAt").get("iceberg").get(0).get("snapshotId").asLong()).isEqualTo(firstSnapshot);
        assertThat(earlier.get("readAt").get("iceberg").get(0).get("pinnedBy").asText()).isEqualTo("snapshot-id");

        HttpResponse<String> byTime = query("SELECT COUNT(*) FROM " + table + " /*+ OPTIONS('as-of-timestamp'='"
                + firstSnapshotMillis + "') */", null, null);
        assertThat(byTime.statusCode()).as(byTime.body()).isEqualTo(200);
        JsonNode then = JSON.readTree(byTime.body());
        assertThat(then.get("rows").get(0).get(0).asLong()).isEqualTo(2);
        assertThat(then.get("readAt").get("iceberg").get(0).get("snapshotId").asLong()).isEqualTo(firstSnapshot);
    }

    @Test
    void forSystemTimeAsOfIsRefusedOnBothCatalogs() throws Exception {
        // What docs/snapshot-sql.md says: time travel is by hint; Flink's FOR SYSTEM_TIME AS OF needs a catalog that
        // implements getTable(path, timestamp), which neither Iceberg's Flink catalog nor the Kafka tables do.
        for (String table : List.of("lake.streamhouse." + icebergTable, DECISIONS_TABLE)) {
            HttpResponse<String> answer = query("SELECT COUNT(*) FROM " + table + " FOR SYSTEM_TIME AS OF TIMESTAMP '2026-03-02 09:00:00'",
                    null, null);
            System.out.println("FOR SYSTEM_TIME AS OF on " + table + " → " + answer.statusCode() + " " + answer.body());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        }
    }

    @Test
    void statementsOtherThanQueriesAreRefusedAndNotRun() throws Exception {
        String table = "lake.streamhouse." + icebergTable;
        for (String sql : List.of("DROP TABLE " + table,
                "INSERT INTO " + table + " SELECT * FROM " + table,
                "CREATE TABLE lake.streamhouse.x (a INT)",
                "SHOW TABLES")) {
            HttpResponse<String> answer = query(sql, null, null);
            assertThat(answer.statusCode()).as(sql + " → " + answer.body()).isEqualTo(400);
            assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(JSON.readTree(answer.body()).get("detail").asText()).as(sql).contains("only a query");
        }
        assertThat(iceberg.tableExists(TableIdentifier.of("streamhouse", icebergTable))).isTrue();
        assertThat(iceberg.tableExists(TableIdentifier.of("streamhouse", "x"))).isFalse();
    }

    @Test
    void malformedSqlGetsTheParsersReason() throws Exception {
        HttpResponse<String> answer = query("SELECT outcome FROM WHERE", null, null);
        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(answer.body()).get("detail").asText()).contains("SQL parse failed").contains("'WHERE' at line 1, column 21");

        HttpResponse<String> unknown = query("SELECT nope FROM " + DECISIONS_TABLE, null, null);
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(unknown.body()).get("detail").asText()).contains("nope");
    }

    @Test
    void hintsCannotMoveTheKafkaBound() throws Exception {
        HttpResponse<String> answer = query("SELECT COUNT(*) FROM " + DECISIONS_TABLE
                + " /*+ OPTIONS('scan.bounded.mode'='latest-offset') */", null, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        assertThat(JSON.readTree(answer.body()).get("detail").asText()).contains("'scan.bounded.mode'");

        HttpResponse<String> unbounded = query("SELECT COUNT(*) FROM " + DECISIONS_TABLE
                + " /*+ OPTIONS('scan.bounded.mode'='unbounded') */", null, null);
        assertThat(unbounded.statusCode()).as(unbounded.body()).isEqualTo(400);
        assertThat(JSON.readTree(unbounded.body()).get("detail").asText()).contains("unbounded");
    }

    @Test
    void rowCapTruncatesAndSaysSo() throws Exception {
        HttpResponse<String> answer = query("SELECT transactionId FROM " + DECISIONS_TABLE + " WHERE transactionId LIKE '"
                + RUN + "-%'", 5, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(answer.body());
        assertThat(body.get("rows")).hasSize(5);
        assertThat(body.get("truncated").asBoolean()).isTrue();

        HttpResponse<String> tooMany = query("SELECT 1", LakeQueryMain.MAX_ROWS_LIMIT + 1, null);
        assertThat(tooMany.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(tooMany.body()).get("detail").asText()).contains("maxRows");
    }

    @Test
    void aQueryPastItsTimeoutIsCancelledWithAnExplicitError() throws Exception {
        // 200^4 = 1.6e9 joined rows: far more than 3 s of work on any machine here.
        String t = DECISIONS_TABLE;
        String sql = "SELECT COUNT(*) FROM " + t + " a, " + t + " b, " + t + " c, " + t + " d WHERE a.transactionId LIKE '" + RUN
                + "-%' AND b.transactionId LIKE '" + RUN + "-%' AND c.transactionId LIKE '" + RUN + "-%' AND d.transactionId LIKE '"
                + RUN + "-%' AND a.cardToken <> d.transactionId";
        long t0 = System.nanoTime();
        HttpResponse<String> answer = query(sql, null, 3000L);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(504);
        assertThat(JSON.readTree(answer.body()).get("detail").asText()).contains("did not finish within 3000 ms");
        assertThat(tookMs).as("answered, not hung").isLessThan(3000 + 15_000);

        HttpResponse<String> next = query("SELECT COUNT(*) FROM " + DECISIONS_TABLE + " WHERE transactionId = '" + RUN + "-1'", null, null);
        assertThat(next.statusCode()).as("the engine serves the next query: " + next.body()).isEqualTo(200);
    }

    private static HttpResponse<String> query(String sql, Integer maxRows, Long timeoutMillis) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("sql", sql);
        if (maxRows != null) {
            body.put("maxRows", maxRows);
        }
        if (timeoutMillis != null) {
            body.put("timeoutMillis", timeoutMillis);
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(engine.url() + "/v1/query"))
                .timeout(Duration.ofSeconds(120)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
