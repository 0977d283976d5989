package io.streamhouse.connect;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;

import io.streamhouse.domain.topic.ConnectNames;
import io.streamhouse.domain.topic.LakeNames;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The Iceberg Kafka Connect sink that lands every {@link LakeNames#landed() landed topic} in its own table, as
 * Connect REST configuration. JDK and {@link LakeNames} only (built in the parent, which has no Iceberg jar).
 *
 * <p>What it guarantees, and why each setting is there:
 * <ul>
 *   <li><b>Exactly once.</b> The task writes Parquet files and announces them on the control topic in one Kafka
 *       transaction with its source offsets; the coordinator appends them and records the control-topic offsets in
 *       the snapshot summary. The source is read {@code read_committed}, so aborted Streams and Flink transactions
 *       never land.</li>
 *   <li><b>Routing.</b> The sink cannot route by topic: {@code InsertField} adds {@code _topic} (with
 *       {@code _partition}, {@code _offset}, {@code _kafka_timestamp}) and each table takes the records whose
 *       {@code _topic} matches its {@code route-regex} (the topic, quoted). The sink skips a record that matches no
 *       table silently, so {@link LakeRouteGuard} runs first and fails such a record into the dead-letter topic.
 *       Tombstones carry no row: they pass the guard and the sink skips them (append only).</li>
 *   <li><b>Bad records</b> (the converter cannot read them, or no table) go to {@link #DEAD_LETTER_TOPIC} with
 *       the reason in Connect's {@code __connect.errors.*} headers; the connector keeps running.</li>
 *   <li><b>Tables</b> are created ahead (not auto-created, which guesses {@code decimal(38,s)}); a new optional field
 *       in a newer registry version becomes a new column ({@code evolve-schema-enabled}).</li>
 *   <li><b>Worker settings are not inherited</b> under our worker's main class: every {@code iceberg.kafka.*} the
 *       sink's own clients need is given here.</li>
 *   <li><b>Control topic per cluster.</b> Its name carries the Kafka cluster id: a fresh broker with an old warehouse
 *       otherwise finds control offsets in the snapshot summaries that its new control topic never reaches, and
 *       commits nothing.</li>
 *   <li><b>One task.</b> The coordinator waits for every task's answer to a commit, and a task that has not received
 *       a record yet never answers (apache/iceberg#17811): each commit would stall until the timeout. One task
 *       reads every partition, so the task that has data is the one that answers.</li>
 * </ul>
 * The coordinator's consumer group must be seeded at offset 0 before the first start (apache/iceberg#18006): the
 * platform does that, and on Kubernetes {@link LakePrepareMain} ({@link LakePreparation}, {@link #coordinatorGroup()}).
 */
public final class LakeConnector {

    public static final String NAME = ConnectNames.LAKE_CONNECTOR;
    public static final String CONNECTOR_CLASS = "org.apache.iceberg.connect.IcebergSinkConnector";
    public static final String DEAD_LETTER_TOPIC = ConnectNames.LAKE_DEAD_LETTER_TOPIC;
    public static final String CONTROL_TOPIC_PREFIX = ConnectNames.LAKE_CONTROL_TOPIC_PREFIX;
    /** The prefix of the sink's transactional ids ({@code iceberg.coordinator.transactional.prefix}). */
    public static final String TRANSACTIONAL_PREFIX = ConnectNames.LAKE_TRANSACTIONAL_PREFIX;
    /** The prefix of the tasks' control-topic consumer groups ({@code iceberg.control.group-id-prefix}). */
    public static final String CONTROL_GROUP_PREFIX = ConnectNames.LAKE_CONTROL_GROUP_PREFIX;
    public static final int COMMIT_INTERVAL_MS = 1_000;
    public static final int COMMIT_TIMEOUT_MS = 4_000;
    static final String ROUTE_GUARD = "io.streamhouse.connect.LakeRouteGuard";
    static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";

    /**
     * @param catalog          Iceberg catalog properties ({@code catalog-impl}, {@code uri}, {@code warehouse}, ...)
     * @param bootstrapServers the Kafka cluster the sink reads and its control topic lives on
     * @param registryUrl      schema registry of the values
     * @param clusterId        the Kafka cluster's id, part of the control topic's name
     * @param topics           the topics to land; each gets the table {@link LakeNames#qualifiedTableName}
     */
    public record Settings(Map<String, String> catalog, String bootstrapServers, String registryUrl, String clusterId,
                           List<String> topics) {
        public Settings {
            Objects.requireNonNull(catalog, "catalog");
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(registryUrl, "registryUrl");
            Objects.requireNonNull(clusterId, "clusterId");
            catalog = Map.copyOf(catalog);
            topics = List.copyOf(topics);
            if (topics.isEmpty()) {
                throw new IllegalArgumentException("no topic to land");
            }
        }

        public String controlTopic() {
            return controlTopicOf(clusterId);
        }
    }

    private LakeConnector() {
    }

    /** Every landed topic of the catalog. */
    public static Settings settings(Map<String, String> catalog, String bootstrapServers, String registryUrl, String clusterId) {
        return new Settings(catalog, bootstrapServers, registryUrl, clusterId,
                LakeNames.landed().stream().map(t -> t.name()).toList());
    }

    public static String controlTopicOf(String clusterId) {
        return CONTROL_TOPIC_PREFIX + clusterId.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** The sink task's consumer group (Connect's {@code connect-<name>}); the sink commits its offsets itself. */
    public static String connectGroup() {
        return ConnectNames.LAKE_GROUP;
    }

    /** The coordinator's consumer group on the control topic. */
    public static String coordinatorGroup() {
        return ConnectNames.LAKE_COORDINATOR_GROUP;
    }

    public static Map<String, String> config(Settings s) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", CONNECTOR_CLASS);
        c.put("tasks.max", "1");
        c.put("topics", String.join(",", s.topics()));
        c.put("key.converter", STRING_CONVERTER);
        c.put("value.converter", WorkerConfig.CONVERTER);
        c.put("value.converter.schema.registry.url", s.registryUrl());
        // Guarantees for the sink's source consumer (Connect's consumer).
        c.put("consumer.override.isolation.level", "read_committed");
        c.put("consumer.override.auto.offset.reset", "earliest");
        c.put("consumer.override.session.timeout.ms", "10000");

        c.put("transforms", "guard,meta");
        c.put("transforms.guard.type", ROUTE_GUARD);
        c.put("transforms.guard." + "topics", String.join(",", s.topics()));
        c.put("transforms.meta.type", "org.apache.kafka.connect.transforms.InsertField$Value");
        c.put("transforms.meta.topic.field", LakeNames.TOPIC_COLUMN + "!");
        c.put("transforms.meta.partition.field", LakeNames.PARTITION_COLUMN + "!");
        c.put("transforms.meta.offset.field", LakeNames.OFFSET_COLUMN + "!");
        c.put("transforms.meta.timestamp.field", LakeNames.KAFKA_TIMESTAMP_COLUMN);

        c.put("errors.tolerance", "all");
        c.put("errors.deadletterqueue.topic.name", DEAD_LETTER_TOPIC);
        // The platform creates the topic ahead (LakeControl); should it be missing, the broker's default replication.
        c.put("errors.deadletterqueue.topic.replication.factor", WorkerConfig.BROKER_DEFAULT_REPLICATION);
        c.put("errors.deadletterqueue.context.headers.enable", "true");
        c.put("errors.log.enable", "true");

        c.put("iceberg.catalog", LakeNames.CATALOG);
        s.catalog().forEach((k, v) -> c.put("iceberg.catalog." + k, v));
        c.put("iceberg.tables", String.join(",", s.topics().stream().map(LakeNames::qualifiedTableName).toList()));
        c.put("iceberg.tables.route-field", LakeNames.TOPIC_COLUMN);
        for (String topic : s.topics()) {
            c.put("iceberg.table." + LakeNames.qualifiedTableName(topic) + ".route-regex", routeRegex(topic));
        }
        c.put("iceberg.tables.auto-create-enabled", "false");
        c.put("iceberg.tables.evolve-schema-enabled", "true");
        c.put("iceberg.control.topic", s.controlTopic());
        c.put("iceberg.control.commit.interval-ms", Integer.toString(COMMIT_INTERVAL_MS));
        c.put("iceberg.control.commit.timeout-ms", Integer.toString(COMMIT_TIMEOUT_MS));
        c.put("iceberg.control.commit.threads", "2");
        // The sink's own clients (control topic producer and consumers, admin): nothing is inherited from the worker.
        c.put("iceberg.kafka.bootstrap.servers", s.bootstrapServers());
        c.put("iceberg.kafka.session.timeout.ms", "10000");
        c.put("iceberg.kafka.transaction.timeout.ms", "10000");
        // Its transactional ids start with this, so an ACL on the prefix can allow them (KafkaAcls).
        c.put("iceberg.coordinator.transactional.prefix", TRANSACTIONAL_PREFIX);
        // Each task's control-topic consumer joins a group of its own, <prefix><random uuid>: a prefix an ACL can allow.
        c.put("iceberg.control.group-id-prefix", CONTROL_GROUP_PREFIX);
        // Its clients log in as the worker does; the password is a reference the worker resolves (never in the config topic).
        c.putAll(KafkaClientSettings.forPrincipal(KafkaPrincipal.CONNECT).connectorSecurity("iceberg.kafka."));
        return c;
    }

    /** The whole-value regex that matches exactly {@code topic}. */
    static String routeRegex(String topic) {
        return topic.replace(".", "\\.");
    }
}
