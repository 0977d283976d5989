package io.streamhouse.lakequery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.PlatformOptions;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * Warm query latency of the lake's query service, by hand (not a test): an Iceberg table of N decisions over D days
 * (partitioned by day, one Parquet file per day, written with Iceberg's Java API as the sink would land them),
 * K decisions on the Kafka topic, then each query R times after 3 warm-ups, timed at the client over HTTP to the
 * service. The floor in the same run: {@code SELECT 1} (one Flink job that reads nothing).
 *
 * <p>Arguments: {@code [rows=1000000] [days=7] [kafkaRows=100000] [runs=20]}.
 */
public final class SnapshotSqlBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Instant DAY0 = Instant.parse("2026-03-02T00:00:00Z");

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int days = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int kafkaRows = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        try (EmbeddedPlatform platform = EmbeddedPlatform.start(PlatformOptions.forTests())) {
            Path dir = Files.createDirectories(Path.of("target", "lake-query-bench", Long.toString(ProcessHandle.current().pid())))
                    .toAbsolutePath();
            LakeQueryOptions.Lake lake = new LakeQueryOptions.Lake(platform.postgres().jdbcUrl(), platform.postgres().user(),
                    platform.postgres().password(), dir.resolve("lake").toUri().toString());
            long t0 = System.nanoTime();
            writeIceberg(lake, rows, days);
            System.out.printf("iceberg: %d rows over %d days written in %.1f s%n", rows, days, (System.nanoTime() - t0) / 1e9);
            t0 = System.nanoTime();
            produceKafka(platform, kafkaRows);
            System.out.printf("kafka: %d decisions produced in %.1f s%n", kafkaRows, (System.nanoTime() - t0) / 1e9);
            try (LakeQueryProcess engine = LakeQueryProcess.start(LakeQueryOptions.of(dir.resolve("engine"),
                    platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), Optional.of(lake)))) {
                Duration started = engine.awaitReady(Duration.ofSeconds(180));
                System.out.printf("engine ready in %.1f s (pid %d)%n", started.toMillis() / 1e3, engine.pid());
                long dayStart = DAY0.plus(Duration.ofDays(days / 2)).toEpochMilli();
                long dayEnd = dayStart + Duration.ofDays(1).toMillis();
                String key = String.format("tx-%08d", rows / 2 + 17);
                Map<String, String> queries = new java.util.LinkedHashMap<>();
                queries.put("floor: SELECT 1", "SELECT 1");
                queries.put("iceberg key lookup", "SELECT * FROM lake.streamhouse.bench_decisions WHERE transactionId = '" + key + "'");
                queries.put("iceberg one day's aggregation", "SELECT outcome, COUNT(*), SUM(amount) FROM lake.streamhouse.bench_decisions"
                        + " WHERE requestedAt >= TO_TIMESTAMP_LTZ(" + dayStart + ", 3) AND requestedAt < TO_TIMESTAMP_LTZ(" + dayEnd
                        + ", 3) GROUP BY outcome");
                queries.put("kafka key lookup", "SELECT transactionId, outcome FROM kafka.streamhouse.payments_transactions_decisions"
                        + " WHERE transactionId = '" + String.format("k-%08d", kafkaRows / 2) + "'");
                queries.put("kafka aggregation (all decisions per outcome)", "SELECT outcome, COUNT(*) FROM "
                        + "kafka.streamhouse.payments_transactions_decisions GROUP BY outcome");
                for (Map.Entry<String, String> q : queries.entrySet()) {
                    for (int i = 0; i < 3; i++) {
                        time(engine.url(), q.getValue());
                    }
                    long[] ms = new long[runs];
                    JsonNode last = null;
                    for (int i = 0; i < runs; i++) {
                        long s = System.nanoTime();
                        last = time(engine.url(), q.getValue());
                        ms[i] = (System.nanoTime() - s) / 1_000_000;
                    }
                    Arrays.sort(ms);
                    System.out.printf("%-48s runs %d  p50 %5d ms  p99 %5d ms  min %5d  max %5d  rows %s%n", q.getKey(), runs,
                            ms[(int) Math.ceil(0.50 * runs) - 1], ms[(int) Math.ceil(0.99 * runs) - 1], ms[0], ms[runs - 1],
                            last.get("rows").size() <= 3 ? last.get("rows") : last.get("rowCount"));
                }
            }
        }
    }

    private static JsonNode time(URI engine, String sql) throws Exception {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(engine.resolve("/v1/query"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("sql", sql).put("timeoutMillis", 300_000).toString()))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IllegalStateException(sql + " → " + answer.statusCode() + " " + answer.body());
        }
        return JSON.readTree(answer.body());
    }

    private static void writeIceberg(LakeQueryOptions.Lake lake, int rows, int days) throws Exception {
        Map<String, String> props = new HashMap<>(Map.of("uri", lake.jdbcUrl(), "jdbc.user", lake.user(),
                "jdbc.schema-version", "V1", "warehouse", lake.warehouse()));
        if (lake.password() != null && !lake.password().isEmpty()) {
            props.put("jdbc.password", lake.password());
        }
        Catalog catalog = CatalogUtil.loadCatalog("org.apache.iceberg.jdbc.JdbcCatalog", "lake", props, new org.apache.hadoop.conf.Configuration());
        Namespace ns = Namespace.of("streamhouse");
        if (!((SupportsNamespaces) catalog).namespaceExists(ns)) {
            ((SupportsNamespaces) catalog).createNamespace(ns);
        }
        Schema schema = new Schema(
                Types.NestedField.required(1, "transactionId", Types.StringType.get()),
                Types.NestedField.required(2, "cardToken", Types.StringType.get()),
                Types.NestedField.required(3, "outcome", Types.StringType.get()),
                Types.NestedField.required(4, "amount", Types.DecimalType.of(19, 4)),
                Types.NestedField.required(5, "requestedAt", Types.TimestampType.withZone()),
                Types.NestedField.required(6, "_topic", Types.StringType.get()),
                Types.NestedField.required(7, "_partition", Types.IntegerType.get()),
                Types.NestedField.required(8, "_offset", Types.LongType.get()),
                Types.NestedField.required(9, "_kafka_timestamp", Types.TimestampType.withZone()));
        PartitionSpec spec = PartitionSpec.builderFor(schema).day("requestedAt").build();
        TableIdentifier id = TableIdentifier.of(ns, "bench_decisions");
        if (catalog.tableExists(id)) {
            catalog.dropTable(id, true);
        }
        Table table = catalog.createTable(id, schema, spec);
        Random random = new Random(42);
        long spacing = Duration.ofDays(days).toMillis() / rows;
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        List<DataFile> files = new ArrayList<>();
        int i = 0;
        for (int day = 0; day < days; day++) {
            OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation("day-" + day + ".parquet"));
            FileAppender<Record> appender = factory.newAppender(out, FileFormat.PARQUET);
            Record first = null;
            long dayEnd = DAY0.plus(Duration.ofDays(day + 1)).toEpochMilli();
            try (appender) {
                for (; i < rows && DAY0.toEpochMilli() + i * spacing < dayEnd; i++) {
                    OffsetDateTime at = OffsetDateTime.ofInstant(Instant.ofEpochMilli(DAY0.toEpochMilli() + i * spacing), ZoneOffset.UTC);
                    GenericRecord r = GenericRecord.create(schema);
                    int o = random.nextInt(100);
                    r.setField("transactionId", String.format("tx-%08d", i));
                    r.setField("cardToken", "tok-" + random.nextInt(50_000));
                    r.setField("outcome", o < 5 ? "BLOCK" : o < 20 ? "REVIEW" : "ALLOW");
                    r.setField("amount", BigDecimal.valueOf(random.nextInt(5_000_000), 2).setScale(4));
                    r.setField("requestedAt", at);
                    r.setField("_topic", Topics.TRANSACTION_DECISIONS.name());
                    r.setField("_partition", i % 6);
                    r.setField("_offset", (long) i / 6);
                    r.setField("_kafka_timestamp", at);
                    appender.add(r);
                    if (first == null) {
                        first = r;
                    }
                }
            }
            if (first == null) {
                continue;
            }
            PartitionKey partition = new PartitionKey(spec, schema);
            partition.partition(new InternalRecordWrapper(schema.asStruct()).wrap(first));
            files.add(DataFiles.builder(spec).withPath(out.location()).withFileSizeInBytes(appender.length())
                    .withMetrics(appender.metrics()).withFormat(FileFormat.PARQUET).withPartition(partition).build());
        }
        var append = table.newAppend();
        files.forEach(append::appendFile);
        append.commit();
        if (catalog instanceof AutoCloseable c) {
            c.close();
        }
    }

    private static void produceKafka(EmbeddedPlatform platform, int rows) {
        CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
        try (KafkaProducer<String, TransactionDecision> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024), new StringSerializer(), new AvroSerializer<>(registry, TransactionDecision.class, false))) {
            Random random = new Random(7);
            for (int i = 0; i < rows; i++) {
                String id = String.format("k-%08d", i);
                int o = random.nextInt(100);
                DecisionOutcome outcome = o < 5 ? DecisionOutcome.BLOCK : o < 20 ? DecisionOutcome.REVIEW : DecisionOutcome.ALLOW;
                producer.send(new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), id, TransactionDecision.newBuilder()
                        .setEnvelope(SampleEvents.envelope("evt-" + id, id, DAY0, TransactionDecision.class))
                        .setTransactionId(id).setCardToken("tok-" + (i % 50_000)).setCustomerId(null).setOutcome(outcome)
                        .setReasons(List.of()).setRuleSetVersion(1).setRequestedAt(DAY0).setDecisionLatencyMillis(3).build()));
            }
            producer.flush();
        }
    }

    private SnapshotSqlBench() {
    }
}
