package io.streamhouse.domain.topic;

import java.util.List;
import java.util.Locale;

/**
 * The lake's names in the catalog, shared by the parent side (the platform, the connector's configuration, replay's
 * backfill and the drills) and the Iceberg side. JDK only, so no reader needs an Iceberg jar to name a table.
 *
 * <p>Contract (readers such as the snapshot-SQL service rely on it): catalog {@value #CATALOG}, namespace
 * {@value #NAMESPACE}, one table per landed topic named after the topic with {@code .} replaced by {@code _}; columns
 * are the value's fields plus {@link #METADATA_COLUMNS}; tables are partitioned by the day of their event time.
 */
public final class LakeNames {

    /** The Iceberg catalog's name (an Iceberg JDBC catalog keys its rows by it). */
    public static final String CATALOG = "lake";
    public static final String NAMESPACE = "streamhouse";
    public static final String TOPIC_COLUMN = "_topic";
    public static final String PARTITION_COLUMN = "_partition";
    public static final String OFFSET_COLUMN = "_offset";
    public static final String KAFKA_TIMESTAMP_COLUMN = "_kafka_timestamp";
    public static final List<String> METADATA_COLUMNS =
            List.of(TOPIC_COLUMN, PARTITION_COLUMN, OFFSET_COLUMN, KAFKA_TIMESTAMP_COLUMN);
    /** The event-time field of every event: the envelope's {@code occurredAt}. */
    public static final String ENVELOPE_EVENT_TIME = "envelope.occurredAt";

    private LakeNames() {
    }

    /** Every topic that lands: each domain, decision, alert, review and rules topic of the catalog. */
    public static List<Topic<String, ?>> landed() {
        return Topics.all();
    }

    /** {@code payments.transactions.decisions} → {@code payments_transactions_decisions}. */
    public static String tableName(String topic) {
        return topic.replace('.', '_').replace('-', '_').toLowerCase(Locale.ROOT);
    }

    /** {@code streamhouse.payments_transactions_decisions}: the identifier the sink and readers use. */
    public static String qualifiedTableName(String topic) {
        return NAMESPACE + "." + tableName(topic);
    }

    /** The struct field name of a union branch in a table; {@code ConnectAvro} uses the same rule. */
    public static String branchName(org.apache.avro.Schema branch) {
        return switch (branch.getType()) {
            case RECORD, ENUM, FIXED -> branch.getName();
            default -> branch.getType().getName();
        };
    }

    /**
     * The (possibly nested, dot-separated) field whose day partitions a topic's table: the envelope's event time;
     * the profiles topic carries no envelope, its event time is the newest change folded in.
     */
    public static String eventTimeColumn(Topic<?, ?> topic) {
        return topic.equals(Topics.CUSTOMER_PROFILES) ? "lastOccurredAt" : ENVELOPE_EVENT_TIME;
    }
}
