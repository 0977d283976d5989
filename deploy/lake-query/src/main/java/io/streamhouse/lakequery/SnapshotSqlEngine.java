package io.streamhouse.lakequery;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.streamhouse.domain.topic.Topic;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rel.core.TableScan;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.SqlParserException;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.CatalogDescriptor;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.GenericInMemoryCatalog;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.planner.operations.PlannerQueryOperation;
import org.apache.flink.table.planner.plan.schema.TableSourceTable;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One warm Flink batch {@link TableEnvironment} on its own MiniCluster (every port on 127.0.0.1), answering read-only
 * snapshot SQL over two catalogs: {@value #LAKE} (Iceberg's JDBC catalog, when configured) and {@value #KAFKA}
 * (every topic of the {@code Topics} catalog as a table, namespace {@value #DATABASE}, dots as underscores).
 *
 * <p>Guarantees: a statement is accepted only if Flink's own parser turns it into a single {@link QueryOperation};
 * anything else is {@link QueryAnswer.Rejected} without being executed. A Kafka table is read from the earliest offset
 * up to the read_committed end offsets taken when the query starts, and the answer reports those offsets; hints may
 * not change how a Kafka table is bounded. Queries run one at a time (a TableEnvironment is not thread-safe); a query
 * that exceeds its timeout has its job cancelled and gets {@link QueryAnswer.TimedOut}, never a hang.
 *
 * <p>Assumption: the Iceberg snapshot an answer reports for an unpinned table is the one current when the query was
 * planned; a commit landing in the few milliseconds until the source plans its splits could be read instead. Pin with
 * the {@code snapshot-id} hint where that matters.
 */
final class SnapshotSqlEngine implements AutoCloseable {

    static final String LAKE = "lake";
    static final String KAFKA = "kafka";
    static final String DATABASE = "streamhouse";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CANCEL_GRACE = Duration.ofSeconds(10);
    /** Kafka table options a hint may not change: they decide what the answer was read at. */
    private static final Set<String> PINNED_KAFKA_OPTION_PREFIXES = Set.of("scan.", "properties.", "topic", "connector");

    private final MiniCluster cluster;
    private final TableEnvironment tEnv;
    private final Admin admin;
    private final org.apache.iceberg.catalog.Catalog iceberg;
    private final Map<ObjectIdentifier, KafkaTable> kafkaTables;
    private final ReentrantLock lock = new ReentrantLock(true);
    /**
     * The one thread that touches the TableEnvironment: Flink's planner keeps Calcite's metadata provider in a
     * thread-local of the thread that created it, so planning on any other thread fails.
     */
    private final ExecutorService runner;

    private record KafkaTable(ObjectIdentifier id, Topic<String, ?> topic, Map<String, String> baseOptions, Schema schema) {
    }

    /** The options each Kafka table is registered with now (its bound included), to tell a hint's change from them. */
    private final Map<ObjectIdentifier, Map<String, String>> registered = new HashMap<>();

    private SnapshotSqlEngine(ExecutorService runner, MiniCluster cluster, TableEnvironment tEnv, Admin admin,
                              org.apache.iceberg.catalog.Catalog iceberg, Map<ObjectIdentifier, KafkaTable> kafkaTables) {
        this.runner = runner;
        this.cluster = cluster;
        this.tEnv = tEnv;
        this.admin = admin;
        this.iceberg = iceberg;
        this.kafkaTables = kafkaTables;
    }

    static SnapshotSqlEngine start(EngineSettings settings) throws Exception {
        Configuration clusterConf = new Configuration();
        clusterConf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        clusterConf.set(RestOptions.ADDRESS, "127.0.0.1");
        clusterConf.set(RestOptions.BIND_PORT, "0");
        clusterConf.set(JobManagerOptions.ADDRESS, "127.0.0.1");
        clusterConf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        clusterConf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        clusterConf.set(TaskManagerOptions.HOST, "127.0.0.1");
        clusterConf.set(TaskManagerOptions.NUM_TASK_SLOTS, settings.slots());
        // Batch operators (sort, hash aggregate, hash join) run in managed memory.
        clusterConf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(128));
        clusterConf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(64));
        clusterConf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(64));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(clusterConf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(settings.slots()).build());
        cluster.start();
        ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "streamhouse-lake-query-runner");
            t.setDaemon(true);
            return t;
        });
        try {
            return runner.submit(() -> create(settings, cluster, runner)).get();
        } catch (ExecutionException e) {
            runner.shutdownNow();
            cluster.close();
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static SnapshotSqlEngine create(EngineSettings settings, MiniCluster cluster, ExecutorService runner) throws Exception {
        Admin admin = null;
        try {
            URI rest = cluster.getRestAddress().get(60, TimeUnit.SECONDS);
            // The TableEnvironment submits to the warm cluster over its REST API ("remote"), instead of starting a
            // MiniCluster per job as the local executor would: that start is what a warm engine saves.
            Configuration tableConf = new Configuration();
            tableConf.set(DeploymentOptions.TARGET, "remote");
            tableConf.set(RestOptions.ADDRESS, rest.getHost());
            tableConf.set(RestOptions.PORT, rest.getPort());
            tableConf.setString("parallelism.default", Integer.toString(settings.parallelism()));
            TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.newInstance().inBatchMode()
                    .withConfiguration(tableConf).build());

            org.apache.iceberg.catalog.Catalog iceberg = null;
            if (!settings.icebergCatalog().isEmpty()) {
                Map<String, String> flinkOptions = new LinkedHashMap<>(settings.icebergCatalog());
                flinkOptions.put("type", "iceberg");
                flinkOptions.putIfAbsent("default-database", DATABASE);
                Configuration catalogConf = Configuration.fromMap(flinkOptions);
                tEnv.createCatalog(LAKE, CatalogDescriptor.of(LAKE, catalogConf));
                iceberg = CatalogUtil.buildIcebergCatalog(LAKE, settings.icebergCatalog(), new org.apache.hadoop.conf.Configuration());
            }

            tEnv.registerCatalog(KAFKA, new GenericInMemoryCatalog(KAFKA, DATABASE));
            Map<ObjectIdentifier, KafkaTable> tables = new LinkedHashMap<>();
            for (Topic<String, ?> topic : settings.topics()) {
                KafkaTable table = kafkaTable(topic, settings);
                tables.put(table.id(), table);
            }
            admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.LAKE_QUERY)
                    .admin(settings.bootstrapServers(), Map.of(
                    AdminClientConfig.CLIENT_ID_CONFIG, "streamhouse-lake-query",
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000")));
            SnapshotSqlEngine engine = new SnapshotSqlEngine(runner, cluster, tEnv, admin, iceberg, tables);
            for (KafkaTable table : tables.values()) {
                engine.register(table, Map.of());
            }
            // The first query in a fresh JVM pays for loading and compiling the planner (seconds): pay it at start.
            try (CloseableIterator<Row> warm = tEnv.executeSql(
                    "SELECT x, COUNT(*) FROM (VALUES (1), (2), (2)) AS t(x) GROUP BY x").collect()) {
                warm.forEachRemaining(r -> { });
            }
            return engine;
        } catch (Exception | Error e) {
            if (admin != null) {
                admin.close();
            }
            throw e;
        }
    }

    /** Runs one statement if it is a query; the whole call, waiting for the engine included, is bounded by {@code timeout}. */
    QueryAnswer query(String sql, int maxRows, Duration timeout) {
        long t0 = System.nanoTime();
        try {
            if (!lock.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return new QueryAnswer.Busy(timeout.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new QueryAnswer.Failed("interrupted while waiting for the engine");
        }
        try {
            AtomicReference<TableResult> running = new AtomicReference<>();
            AtomicReference<String> stage = new AtomicReference<>("planning");
            Future<QueryAnswer> future = runner.submit(() -> run(sql, maxRows, t0, running, stage));
            long left = timeout.toNanos() - (System.nanoTime() - t0);
            try {
                return future.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                String at = stage.get();
                cancel(running.get(), future);
                return new QueryAnswer.TimedOut(timeout.toMillis(), at);
            } catch (ExecutionException e) {
                return new QueryAnswer.Failed(rootMessage(e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancel(running.get(), future);
                return new QueryAnswer.Failed("interrupted");
            }
        } finally {
            lock.unlock();
        }
    }

    private QueryAnswer run(String sql, int maxRows, long t0, AtomicReference<TableResult> running, AtomicReference<String> stage) {
        List<Operation> operations;
        try {
            operations = ((TableEnvironmentInternal) tEnv).getParser().parse(sql);
        } catch (SqlParserException | ValidationException | IllegalArgumentException e) {
            return new QueryAnswer.Rejected(rootMessage(e));
        }
        if (operations.size() != 1) {
            return new QueryAnswer.Rejected("exactly one statement is allowed, got " + operations.size());
        }
        if (!(operations.get(0) instanceof QueryOperation query)) {
            return new QueryAnswer.Rejected("only a query (SELECT, WITH, VALUES) is allowed; this statement is "
                    + describe(operations.get(0)));
        }
        List<ScannedTable> scanned = scannedTables(query);
        List<QueryAnswer.KafkaRead> kafkaReads = new ArrayList<>();
        List<QueryAnswer.IcebergRead> icebergReads = new ArrayList<>();
        Set<ObjectIdentifier> seen = new LinkedHashSet<>();
        for (ScannedTable t : scanned) {
            Map<String, String> current = registered.get(t.id());
            if (current == null) {
                continue;
            }
            for (Map.Entry<String, String> option : t.options().entrySet()) {
                boolean pinned = PINNED_KAFKA_OPTION_PREFIXES.stream().anyMatch(p -> option.getKey().startsWith(p));
                if (pinned && !Objects.equals(current.get(option.getKey()), option.getValue())) {
                    return new QueryAnswer.Rejected("option '" + option.getKey() + "' of Kafka table " + t.id().asSummaryString()
                            + " cannot be set by a hint: the engine bounds Kafka tables at the end offsets taken when the query starts");
                }
            }
        }
        for (ScannedTable t : scanned) {
            if (!seen.add(t.id())) {
                continue;
            }
            KafkaTable kafka = kafkaTables.get(t.id());
            if (kafka != null) {
                stage.set("reading Kafka end offsets");
                Map<Integer, Long> ends = endOffsets(kafka.topic().name());
                register(kafka, ends);
                ends.forEach((p, o) -> kafkaReads.add(new QueryAnswer.KafkaRead(t.id().asSummaryString(), kafka.topic().name(), p, o)));
            } else if (LAKE.equals(t.id().getCatalogName()) && iceberg != null) {
                icebergReads.add(icebergRead(t));
            }
        }
        stage.set("submitting the job");
        TableResult result;
        try {
            result = tEnv.executeSql(sql);
        } catch (ValidationException | SqlParserException e) {
            return new QueryAnswer.Rejected(rootMessage(e));
        } catch (org.apache.flink.table.api.TableException e) {
            return new QueryAnswer.Rejected("cannot plan the query: " + rootMessage(e));
        }
        running.set(result);
        stage.set("running");
        List<QueryAnswer.Column> columns = new ArrayList<>();
        List<DataType> types = new ArrayList<>();
        for (Column c : result.getResolvedSchema().getColumns()) {
            columns.add(new QueryAnswer.Column(c.getName(), c.getDataType().toString()));
            types.add(c.getDataType());
        }
        ArrayNode rows = JSON.createArrayNode();
        boolean truncated = false;
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                if (rows.size() == maxRows) {
                    truncated = true;
                    break;
                }
                ArrayNode out = rows.addArray();
                for (int i = 0; i < types.size(); i++) {
                    out.add(JsonValues.of(row.getField(i), types.get(i).getLogicalType()));
                }
            }
        } catch (Exception e) {
            return new QueryAnswer.Failed(rootMessage(e));
        }
        if (truncated) {
            result.getJobClient().ifPresent(JobClient::cancel); // the rest is not needed
        }
        kafkaReads.sort(Comparator.comparing(QueryAnswer.KafkaRead::topic).thenComparingInt(QueryAnswer.KafkaRead::partition));
        return new QueryAnswer.Rows(columns, rows, truncated, new QueryAnswer.ReadAt(icebergReads, kafkaReads),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    private record ScannedTable(ObjectIdentifier id, Map<String, String> options) {
    }

    /** Every table the planned query scans, with the options its hints give it (views and subqueries expanded). */
    private static List<ScannedTable> scannedTables(QueryOperation query) {
        List<ScannedTable> found = new ArrayList<>();
        if (!(query instanceof PlannerQueryOperation planned)) {
            return found; // e.g. VALUES built by the Table API: reads no table
        }
        new RelVisitor() {
            @Override
            public void visit(RelNode node, int ordinal, RelNode parent) {
                if (node instanceof TableScan scan) {
                    TableSourceTable source = scan.getTable().unwrap(TableSourceTable.class);
                    if (source != null) {
                        found.add(new ScannedTable(source.contextResolvedTable().getIdentifier(),
                                source.contextResolvedTable().getResolvedTable().getOptions()));
                    }
                }
                super.visit(node, ordinal, parent);
            }
        }.go(planned.getCalciteTree());
        return found;
    }

    private QueryAnswer.IcebergRead icebergRead(ScannedTable t) {
        Table table = iceberg.loadTable(TableIdentifier.of(Namespace.of(t.id().getDatabaseName()), t.id().getObjectName()));
        table.refresh();
        Map<String, String> o = t.options();
        String name = t.id().asSummaryString();
        if (o.containsKey("snapshot-id")) {
            return new QueryAnswer.IcebergRead(name, Long.parseLong(o.get("snapshot-id")), "snapshot-id");
        }
        if (o.containsKey("as-of-timestamp")) {
            return new QueryAnswer.IcebergRead(name, SnapshotUtil.snapshotIdAsOfTime(table, Long.parseLong(o.get("as-of-timestamp"))),
                    "as-of-timestamp");
        }
        for (String ref : List.of("tag", "branch")) {
            if (o.containsKey(ref)) {
                Snapshot s = table.snapshot(o.get(ref));
                return new QueryAnswer.IcebergRead(name, s == null ? null : s.snapshotId(), ref);
            }
        }
        Snapshot current = table.currentSnapshot();
        return new QueryAnswer.IcebergRead(name, current == null ? null : current.snapshotId(), "current");
    }

    private Map<Integer, Long> endOffsets(String topic) {
        try {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
            for (TopicPartitionInfo p : description.partitions()) {
                specs.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
            }
            Map<Integer, Long> ends = new TreeMap<>();
            admin.listOffsets(specs, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get()
                    .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
            return ends;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the end offsets of topic " + topic + ": " + rootMessage(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the end offsets of " + topic, e);
        }
    }

    private static KafkaTable kafkaTable(Topic<String, ?> topic, EngineSettings settings) {
        org.apache.avro.Schema avro = RegistryAvroFormatFactory.readerSchema(topic.valueType().getName());
        RowType value = (RowType) AvroRows.dataType(avro).getLogicalType();
        Schema.Builder schema = Schema.newBuilder();
        for (RowType.RowField f : value.getFields()) {
            schema.column(f.getName(), DataTypes.of(f.getType()));
        }
        schema.column("_key", DataTypes.STRING());
        schema.columnByMetadata("_topic", DataTypes.STRING().notNull(), "topic", true);
        schema.columnByMetadata("_partition", DataTypes.INT().notNull(), "partition", true);
        schema.columnByMetadata("_offset", DataTypes.BIGINT().notNull(), "offset", true);
        schema.columnByMetadata("_kafka_timestamp", DataTypes.TIMESTAMP_LTZ(3).notNull(), "timestamp", true);
        Map<String, String> options = new LinkedHashMap<>();
        options.put("connector", "kafka");
        options.put("topic", topic.name());
        options.put("properties.bootstrap.servers", settings.bootstrapServers());
        options.putAll(KafkaClientSettings.forPrincipal(KafkaPrincipal.LAKE_QUERY).security("properties."));
        options.put("properties.isolation.level", "read_committed");
        options.put("properties.client.id.prefix", "streamhouse-lake-query");
        options.put("scan.startup.mode", "earliest-offset");
        options.put("key.format", "raw");
        options.put("key.fields", "_key");
        options.put("value.format", RegistryAvroFormatFactory.IDENTIFIER);
        options.put("value.fields-include", "EXCEPT_KEY");
        options.put("value." + RegistryAvroFormatFactory.IDENTIFIER + ".registry-url", settings.registryUrl());
        options.put("value." + RegistryAvroFormatFactory.IDENTIFIER + ".reader-class", topic.valueType().getName());
        return new KafkaTable(ObjectIdentifier.of(KAFKA, DATABASE, tableName(topic.name())), topic, options, schema.build());
    }

    /** The table a topic is seen as, in either catalog: dots become underscores. */
    static String tableName(String topic) {
        return topic.replace('.', '_').replace('-', '_');
    }

    /** (Re-)registers a Kafka table bounded at {@code ends} (partition → offset); empty: at the latest offsets. */
    private void register(KafkaTable table, Map<Integer, Long> ends) {
        Map<String, String> options = new LinkedHashMap<>(table.baseOptions());
        if (ends.isEmpty()) {
            options.put("scan.bounded.mode", "latest-offset");
        } else {
            options.put("scan.bounded.mode", "specific-offsets");
            StringBuilder spec = new StringBuilder();
            ends.forEach((p, o) -> spec.append(spec.length() == 0 ? "" : ";").append("partition:").append(p).append(",offset:").append(o));
            options.put("scan.bounded.specific-offsets", spec.toString());
        }
        TableDescriptor.Builder descriptor = TableDescriptor.forConnector("kafka").schema(table.schema());
        options.forEach((k, v) -> {
            if (!k.equals("connector")) {
                descriptor.option(k, v);
            }
        });
        String path = "`" + KAFKA + "`.`" + DATABASE + "`.`" + table.id().getObjectName() + "`";
        tEnv.dropTemporaryTable(path);
        tEnv.createTemporaryTable(path, descriptor.build());
        registered.put(table.id(), options);
    }

    private void cancel(TableResult result, Future<?> future) {
        if (result != null) {
            result.getJobClient().ifPresent(c -> c.cancel());
        }
        future.cancel(true);
        try {
            future.get(CANCEL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception ignored) {
            // Cancelled or failed as expected; the next query may start.
        }
    }

    private static String describe(Operation operation) {
        String summary;
        try {
            summary = operation.asSummaryString();
        } catch (RuntimeException e) {
            summary = ""; // some operations cannot summarise themselves before they are executed
        }
        int colon = summary.indexOf(':');
        String head = colon > 0 ? summary.substring(0, colon) : operation.getClass().getSimpleName().replace("Operation", "");
        return head.length() > 80 ? head.substring(0, 80) : head;
    }

    /** The outermost message (what Flink says went wrong) and, if it adds something, the innermost one (why). */
    /** The warm cluster's REST address, where other Flink jobs of this JVM (the lake's compaction) are submitted. */
    URI restAddress() throws Exception {
        return cluster.getRestAddress().get(60, TimeUnit.SECONDS);
    }

    static String rootMessage(Throwable e) {
        String first = null;
        String last = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                String m = t.getClass().getSimpleName() + ": " + t.getMessage();
                if (first == null) {
                    first = m;
                }
                last = m;
            }
        }
        if (first == null) {
            return e.getClass().getName();
        }
        String firstLine = first.lines().findFirst().orElse(first);
        return last.equals(first) || first.contains(last.substring(last.indexOf(": ") + 2)) ? first : firstLine + " (cause: " + last + ")";
    }

    @Override
    public void close() throws Exception {
        runner.shutdownNow();
        admin.close(Duration.ofSeconds(5));
        if (iceberg instanceof AutoCloseable c) {
            c.close();
        }
        cluster.close();
    }
}
