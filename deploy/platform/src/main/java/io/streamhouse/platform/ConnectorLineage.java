package io.streamhouse.platform;

import io.openlineage.client.utils.DatasetIdentifier;
import io.openlineage.client.utils.filesystem.FilesystemDatasetUtils;
import io.streamhouse.lineage.JobLineage;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The OpenLineage datasets of a Kafka Connect connector, read from the configuration the platform registers (the
 * worker runs exactly that configuration). Job {@code streamhouse/<connector name>}, integration
 * {@value #INTEGRATION}. Two connector classes are known; any other is refused rather than guessed.
 * <ul>
 *   <li><b>Debezium PostgreSQL source:</b> inputs are the captured tables ({@code table.include.list}), named as
 *       OpenLineage names PostgreSQL tables: namespace {@code postgres://host:port}, name {@code database.schema.table}.
 *       Outputs are the topics Debezium writes, {@code <topic.prefix>.<schema>.<table>} and its heartbeat topic
 *       {@code <topic.heartbeat.prefix>.<topic.prefix>}, each passed through the connector's {@code RegexRouter}
 *       transforms as Connect applies them.</li>
 *   <li><b>Iceberg sink:</b> inputs are its {@code topics}; outputs its {@code iceberg.tables}, named as OpenLineage's
 *       own Iceberg integrations name a table of a catalog without a naming scheme of its own (the JDBC catalog):
 *       by the table's location ({@code FilesystemDatasetUtils.fromLocation}: namespace {@code file}, name the path),
 *       with the catalog name as a {@code TABLE} symlink ({@code file:<warehouse>}, {@code namespace.table}). The
 *       location is the JDBC catalog's default, {@code <warehouse>/<namespace>/<table>}: the lake's tables are created
 *       without one. And the dead-letter topic. Its control topic is left out: the sink writes and reads it itself,
 *       as a Streams app its repartition topics.</li>
 * </ul>
 */
public final class ConnectorLineage {
    /** The OpenLineage integration name in the job type facet. */
    public static final String INTEGRATION = "KAFKA_CONNECT";
    static final String DEBEZIUM_POSTGRES = "io.debezium.connector.postgresql.PostgresConnector";
    static final String ICEBERG_SINK = "org.apache.iceberg.connect.IcebergSinkConnector";
    static final String REGEX_ROUTER = "org.apache.kafka.connect.transforms.RegexRouter";
    static final String DEFAULT_HEARTBEAT_PREFIX = "__debezium-heartbeat";

    /**
     * @param bootstrapServers the Kafka cluster the worker (and so the connector) reads and writes
     * @param workerVersion    the Connect worker's version, for the {@code processing_engine} facet
     */
    public static JobLineage of(String name, Map<String, String> config, String bootstrapServers, String workerVersion) {
        String connectorClass = config.getOrDefault("connector.class", "");
        var engine = new JobLineage.Engine(INTEGRATION, "CONNECTOR", "kafka-connect", workerVersion);
        return switch (connectorClass) {
            case DEBEZIUM_POSTGRES -> new JobLineage(name, engine, postgresTables(config),
                    JobLineage.kafkaTopics(bootstrapServers, debeziumTopics(config)));
            case ICEBERG_SINK -> new JobLineage(name, engine, JobLineage.kafkaTopics(bootstrapServers, list(config, "topics")),
                    icebergOutputs(config, bootstrapServers));
            default -> throw new IllegalArgumentException("no lineage for connector class '" + connectorClass + "' of " + name);
        };
    }

    private static List<JobLineage.Dataset> postgresTables(Map<String, String> c) {
        String namespace = "postgres://" + required(c, "database.hostname") + ":" + c.getOrDefault("database.port", "5432");
        String database = required(c, "database.dbname");
        return list(c, "table.include.list").stream().map(t -> new JobLineage.Dataset(namespace, database + "." + t)).toList();
    }

    private static List<String> debeziumTopics(Map<String, String> c) {
        String prefix = required(c, "topic.prefix");
        Set<String> topics = new LinkedHashSet<>();
        for (String table : list(c, "table.include.list")) {
            topics.add(routed(c, prefix + "." + table));
        }
        if (Long.parseLong(c.getOrDefault("heartbeat.interval.ms", "0")) > 0) {
            topics.add(routed(c, c.getOrDefault("topic.heartbeat.prefix", DEFAULT_HEARTBEAT_PREFIX) + "." + prefix));
        }
        return List.copyOf(topics);
    }

    /** The topic after the connector's RegexRouter transforms, in their order (a whole-name match, as Connect's). */
    static String routed(Map<String, String> c, String topic) {
        for (String alias : list(c, "transforms")) {
            if (REGEX_ROUTER.equals(c.get("transforms." + alias + ".type"))) {
                Matcher m = Pattern.compile(required(c, "transforms." + alias + ".regex")).matcher(topic);
                if (m.matches()) {
                    topic = m.replaceFirst(required(c, "transforms." + alias + ".replacement"));
                }
            }
        }
        return topic;
    }

    private static List<JobLineage.Dataset> icebergOutputs(Map<String, String> c, String bootstrapServers) {
        String warehouse = required(c, "iceberg.catalog.warehouse").replaceAll("/+$", "");
        List<JobLineage.Dataset> outputs = new ArrayList<>();
        for (String table : list(c, "iceberg.tables")) {
            int dot = table.lastIndexOf('.');
            String location = warehouse + "/" + table.substring(0, dot).replace('.', '/') + "/" + table.substring(dot + 1);
            DatasetIdentifier physical = FilesystemDatasetUtils.fromLocation(URI.create(location));
            DatasetIdentifier catalogName = FilesystemDatasetUtils.fromLocationAndName(URI.create(warehouse), table);
            outputs.add(new JobLineage.Dataset(physical.getNamespace(), physical.getName(),
                    List.of(new JobLineage.Symlink(catalogName.getNamespace(), catalogName.getName(),
                            DatasetIdentifier.SymlinkType.TABLE.name()))));
        }
        String deadLetters = c.get("errors.deadletterqueue.topic.name");
        if (deadLetters != null && !deadLetters.isBlank()) {
            outputs.addAll(JobLineage.kafkaTopics(bootstrapServers, List.of(deadLetters)));
        }
        return outputs;
    }

    private static List<String> list(Map<String, String> c, String key) {
        String raw = c.getOrDefault(key, "");
        return Arrays.stream(raw.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static String required(Map<String, String> c, String key) {
        String v = c.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("connector configuration has no " + key);
        }
        return v;
    }

    private ConnectorLineage() {
    }
}
