package io.streamhouse.projections.serving;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Names of the serving projections' stores and what feeds them: the contract between {@link ServingTopology}, the
 * api that queries the stores, and the tests. Changing a name abandons the store's state and changelog.
 */
public final class ServingStores {
    /** Versioned, by parcel id: {@code ParcelTracking}. */
    public static final String PARCEL_TRACKING = "parcel-tracking";
    /**
     * Plain key-value, beside {@link #PARCEL_TRACKING} in the same task, by {@link ParcelScans#keyOf scan key}: each
     * parcel's newest scans ({@code ParcelScanEntry}), which the query layer joins to the parcel's state.
     */
    public static final String PARCEL_SCANS = "parcel-scans";
    /** Versioned, by vehicle id: {@code VehicleHealth}. */
    public static final String VEHICLE_HEALTH = "vehicle-health";
    /** Versioned, by subject id (the alert topics' key): {@code SubjectAlerts}. */
    public static final String SUBJECT_ALERTS = "alerts-by-subject";
    /** Versioned, by customer id: {@code CustomerState}. */
    public static final String CUSTOMER_STATE = "customer-state";
    /** Plain key-value, per task, by {@link AlertFeedKeys time-sortable key}: every alert, for the paged feed. */
    public static final String ALERT_FEED = "alert-feed";
    /**
     * Plain key-value, per task, by {@link AlertFeedKeys time-sortable key} of the decision's {@code recordedAt} (when
     * it was decided) and transaction id: the newest {@link #DECISION_FEED_KEPT} decisions of each partition, for the
     * paged list of recent decisions.
     */
    public static final String DECISION_FEED = "decision-feed";
    /**
     * Decisions the decision feed keeps per partition of {@code payments.transactions.decisions} (six partitions: 6,000
     * in all); older ones are deleted. A list read asks for at most 500, so the feed reaches back far beyond one page.
     */
    public static final int DECISION_FEED_KEPT = 1_000;
    /** Customer profiles folded from the customer change events, keyed by customer id (feeds {@code shop.customers.profiles}). */
    public static final String CUSTOMER_PROFILES = "customer-profiles";

    /** Versioned, by rule id: {@code RuleHistory}, every version of a rule from the audit trail ({@link RuleHistoryTopology}). */
    public static final String RULE_HISTORY = "rule-history";

    /** Repartition topics (suffixes; Streams prefixes them with the application id). */
    public static final String CUSTOMER_ORDERS_REPARTITION = "customer-orders";
    public static final String RULE_HISTORY_REPARTITION = "rule-history-by-rule";
    public static final String CUSTOMER_DECISIONS_REPARTITION = "customer-decisions";

    /** How far back {@code asOf} reaches by default: older versions are dropped from the versioned stores. */
    public static final Duration DEFAULT_HISTORY_RETENTION = Duration.ofDays(7);

    /** The versioned stores' segment interval by default (see {@link ServingTopology.Config}). */
    public static final Duration DEFAULT_HISTORY_SEGMENT = Duration.ofMinutes(1);

    /**
     * The topics whose partition {@code p} feeds partition {@code p} of each store (repartition topics by suffix):
     * the lag of an answer is the lag of these partitions.
     */
    public static final Map<String, List<String>> INPUTS = Map.of(
            PARCEL_TRACKING, List.of("logistics.parcels.scanned"),
            PARCEL_SCANS, List.of("logistics.parcels.scanned"),
            VEHICLE_HEALTH, List.of("fleet.vehicles.telemetry"),
            SUBJECT_ALERTS, List.of("alerts.fraud", "alerts.parcels", "alerts.maintenance"),
            ALERT_FEED, List.of("alerts.fraud", "alerts.parcels", "alerts.maintenance"),
            DECISION_FEED, List.of("payments.transactions.decisions"),
            CUSTOMER_STATE, List.of("shop.customers", CUSTOMER_ORDERS_REPARTITION + "-repartition",
                    CUSTOMER_DECISIONS_REPARTITION + "-repartition"),
            RULE_HISTORY, List.of(RULE_HISTORY_REPARTITION + "-repartition"));

    private ServingStores() {
    }
}
