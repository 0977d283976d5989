package io.streamhouse.connect;

import io.streamhouse.domain.topic.ConnectNames;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The Debezium PostgreSQL connector that captures the shop tables, as Connect REST configuration. JDK-only.
 *
 * <p>What it guarantees, and why each setting is there:
 * <ul>
 *   <li>{@code plugin.name=pgoutput} (built into PostgreSQL ≥ 10, no server plugin to install) with a publication
 *       Debezium creates for exactly the captured tables ({@code publication.autocreate.mode=filtered}).</li>
 *   <li>{@code decimal.handling.mode=precise}: numeric(19,4) arrives as Connect {@code Decimal}, written as an Avro
 *       decimal by {@link RegistryAvroConverter}: exact, never a double.</li>
 *   <li>{@code exactly.once.support=required}, {@code transaction.boundary=poll}: each poll's records and the source
 *       offset (the LSN) are one Kafka transaction (KIP-618): a worker killed mid-stream resumes from the last
 *       committed LSN and neither loses nor repeats a change on {@code shop.cdc.changes}.</li>
 *   <li>Heartbeats every {@link #HEARTBEAT_INTERVAL_MS} ms, with {@code heartbeat.action.query} writing a row into
 *       {@code shop.cdc_heartbeat}: an idle shop database still produces a change, so the slot's confirmed LSN
 *       advances and the slot does not pin WAL.</li>
 *   <li>Every table's changes are routed to the single topic {@code shop.cdc.changes} (one partition: commit order
 *       across tables); values and keys are registered under per-record subjects.</li>
 *   <li>{@code poll.interval.ms=100} (default 500). Debezium's read loop sleeps this long after five empty reads of the
 *       replication stream, so a change that comes to an idle database waits up to this long. Its batch queue hands
 *       the task a batch when it is full or after this long, so a lone change waits up to this long again; and with exactly-once source
 *       support each poll, empty or not, commits: Connect calls the task's {@code commit()}, and Debezium then reads
 *       its offsets back from Kafka and confirms the LSN to PostgreSQL: the shorter the interval, the more of an idle
 *       worker's CPU and of the broker's requests that takes (docs/run.md, "An idle stack").</li>
 * </ul>
 */
public final class CdcConnector {

    /** By name, not by class: this class is loaded by parents that have no Connect API on their classpath. */
    static final String CONVERTER = "io.streamhouse.connect.RegistryAvroConverter";

    public static final String DEFAULT_NAME = ConnectNames.CDC_CONNECTOR;
    public static final String DEFAULT_SLOT = "streamhouse_shop";
    public static final String DEFAULT_PUBLICATION = "streamhouse_shop";
    public static final String TOPIC_PREFIX = "shopdb";
    public static final String RAW_TOPIC = "shop.cdc.changes";
    public static final int HEARTBEAT_INTERVAL_MS = 10_000;
    static final int POLL_INTERVAL_MS = 100;
    public static final String TABLES =
            "shop.customers,shop.addresses,shop.payment_methods,shop.orders,shop.order_lines,shop.cdc_heartbeat";

    /**
     * Where the connector reads from.
     *
     * @param jdbcUrl  {@code jdbc:postgresql://host:port/database}
     * @param password empty when the server trusts the connection
     */
    public record Source(String jdbcUrl, String user, String password, String slotName, String publicationName) {
        public Source {
            Objects.requireNonNull(jdbcUrl, "jdbcUrl");
            Objects.requireNonNull(user, "user");
            password = password == null ? "" : password;
            slotName = slotName == null ? DEFAULT_SLOT : slotName;
            publicationName = publicationName == null ? DEFAULT_PUBLICATION : publicationName;
            if (!slotName.matches("[a-z0-9_]{1,63}")) {
                throw new IllegalArgumentException("slot name must be lower-case letters, digits and _, was " + slotName);
            }
            if (!publicationName.matches("[a-z0-9_]{1,63}")) {
                throw new IllegalArgumentException("publication name must be lower-case letters, digits and _, was " + publicationName);
            }
            if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
                throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + jdbcUrl);
            }
        }
    }

    private CdcConnector() {
    }

    public static Map<String, String> config(Source source, String registryUrl) {
        URI uri = URI.create(source.jdbcUrl().substring("jdbc:".length()));
        String database = uri.getPath().replaceFirst("^/", "");
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        c.put("tasks.max", "1");
        c.put("plugin.name", "pgoutput");
        c.put("database.hostname", uri.getHost());
        c.put("database.port", Integer.toString(uri.getPort() < 0 ? 5432 : uri.getPort()));
        c.put("database.user", source.user());
        c.put("database.password", source.password());
        c.put("database.dbname", database);
        c.put("topic.prefix", TOPIC_PREFIX);
        c.put("schema.include.list", "shop");
        c.put("table.include.list", TABLES);
        c.put("slot.name", source.slotName());
        c.put("publication.name", source.publicationName());
        c.put("publication.autocreate.mode", "filtered");
        c.put("poll.interval.ms", Integer.toString(POLL_INTERVAL_MS));
        c.put("decimal.handling.mode", "precise");
        c.put("heartbeat.interval.ms", Integer.toString(HEARTBEAT_INTERVAL_MS));
        c.put("heartbeat.action.query", "INSERT INTO shop.cdc_heartbeat (id, beat_at) VALUES (1, now()) "
                + "ON CONFLICT (id) DO UPDATE SET beat_at = EXCLUDED.beat_at");
        c.put("exactly.once.support", "required");
        c.put("transaction.boundary", "poll");
        c.put("transforms", "route");
        c.put("transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter");
        c.put("transforms.route.regex", TOPIC_PREFIX + "\\.shop\\..*");
        c.put("transforms.route.replacement", RAW_TOPIC);
        c.put("key.converter", CONVERTER);
        c.put("value.converter", CONVERTER);
        c.put("key.converter.schema.registry.url", registryUrl);
        c.put("value.converter.schema.registry.url", registryUrl);
        c.put("key.converter." + RegistryAvroConverter.SUBJECT_STRATEGY, "topic-record");
        c.put("value.converter." + RegistryAvroConverter.SUBJECT_STRATEGY, "topic-record");
        // Debezium's own heartbeat topic (__debezium-heartbeat.shopdb) is created by Connect; the raw topic by the
        // platform's catalog.
        c.put("topic.creation.default.replication.factor", WorkerConfig.BROKER_DEFAULT_REPLICATION);
        c.put("topic.creation.default.partitions", "1");
        return c;
    }
}
