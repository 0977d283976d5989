package io.streamhouse.domain.topic;

/**
 * The Kafka Connect side of the catalog: the connectors' names and the consumer groups, topics and prefixes they use,
 * for whoever configures, authorises, watches or drills them (the platform, the launcher, replay) without Connect's
 * jars. Kafka Connect names a sink connector's consumer group {@code connect-<connector>} ({@link #groupOf}).
 */
public final class ConnectNames {
    /** Debezium's PostgreSQL connector: the shop database's changes onto {@link Topics#CDC_SHOP_CHANGES}. */
    public static final String CDC_CONNECTOR = "shop-cdc";
    /** The Iceberg sink that lands every event topic in the lake ({@link LakeNames}). */
    public static final String LAKE_CONNECTOR = "lake";
    /** Where the lake's sink puts a record it cannot land (Connect's own dead-letter queue, with its context headers). */
    public static final String LAKE_DEAD_LETTER_TOPIC = "lake.dlq";
    /** The Iceberg sink's control topic, one per Kafka cluster: this prefix and the cluster id. */
    public static final String LAKE_CONTROL_TOPIC_PREFIX = "streamhouse.lake.control.";
    /** The prefix of the Iceberg sink's transactional ids. */
    public static final String LAKE_TRANSACTIONAL_PREFIX = "streamhouse-lake-";
    /** The prefix of the lake sink's tasks' control-topic consumer groups ({@code iceberg.control.group-id-prefix}). */
    public static final String LAKE_CONTROL_GROUP_PREFIX = "streamhouse-lake-control-";
    /** The lake sink task's consumer group; the sink commits its offsets itself. */
    public static final String LAKE_GROUP = groupOf(LAKE_CONNECTOR);
    /** The lake sink coordinator's consumer group on the control topic. */
    public static final String LAKE_COORDINATOR_GROUP = LAKE_GROUP + "-coord";

    /** The consumer group Kafka Connect gives the sink connector {@code connector}. */
    public static String groupOf(String connector) {
        return "connect-" + connector;
    }

    private ConnectNames() {
    }
}
