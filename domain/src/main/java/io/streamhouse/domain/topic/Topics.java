package io.streamhouse.domain.topic;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.CustomerProfile;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The topic catalog: the contract between the teams that write and read the log. Keys are plain strings (the
 * aggregate id, UTF-8); values are Avro in the Confluent wire format. {@code docs/topics.md} lists the same topics
 * (a test keeps the two in step).
 */
public final class Topics {

    private static final Optional<Duration> FOREVER = Optional.empty();
    private static final Optional<Duration> DEAD_LETTER_RETENTION = Optional.of(Duration.ofDays(30));

    public static final Topic<String, CustomerEvent> CUSTOMERS = new Topic<>(
            "shop.customers", String.class, CustomerEvent.class, 6, CleanupPolicy.DELETE, FOREVER,
            "Customer changes from the shop database (CDC), keyed by customer id.");

    public static final Topic<String, CustomerProfile> CUSTOMER_PROFILES = new Topic<>(
            "shop.customers.profiles", String.class, CustomerProfile.class, 6, CleanupPolicy.COMPACT, FOREVER,
            "Each customer's profile as the decision rules see it (account age, latest address and e-mail change), "
                    + "folded from shop.customers; keyed by customer id, latest per key.");

    public static final Topic<String, OrderEvent> ORDERS = new Topic<>(
            "shop.orders", String.class, OrderEvent.class, 6, CleanupPolicy.DELETE, FOREVER,
            "Order changes from the shop database (CDC), keyed by order id.");

    public static final Topic<String, TransactionAuthorizationRequested> TRANSACTION_REQUESTS = new Topic<>(
            "payments.transactions.requested", String.class, TransactionAuthorizationRequested.class, 6,
            CleanupPolicy.DELETE, FOREVER,
            "Card authorization requests (tokenized card), keyed by card token so a card's payments stay in order.");

    public static final Topic<String, TransactionDecision> TRANSACTION_DECISIONS = new Topic<>(
            "payments.transactions.decisions", String.class, TransactionDecision.class, 6,
            CleanupPolicy.DELETE, FOREVER,
            "ALLOW / REVIEW / BLOCK for each request with every reason, keyed by transaction id.");

    public static final Topic<String, VehicleTelemetry> VEHICLE_TELEMETRY = new Topic<>(
            "fleet.vehicles.telemetry", String.class, VehicleTelemetry.class, 6, CleanupPolicy.DELETE, FOREVER,
            "Telematics readings, keyed by vehicle id.");

    public static final Topic<String, ParcelScanned> PARCEL_SCANS = new Topic<>(
            "logistics.parcels.scanned", String.class, ParcelScanned.class, 6, CleanupPolicy.DELETE, FOREVER,
            "Parcel scans at hubs and by drivers, keyed by parcel id.");

    public static final Topic<String, Alert> FRAUD_ALERTS = new Topic<>(
            "alerts.fraud", String.class, Alert.class, 3, CleanupPolicy.DELETE, FOREVER,
            "Fraud patterns found (card testing, impossible travel, account takeover), keyed by card or customer.");

    public static final Topic<String, Alert> PARCEL_ALERTS = new Topic<>(
            "alerts.parcels", String.class, Alert.class, 3, CleanupPolicy.DELETE, FOREVER,
            "Parcels breaching or at risk of breaching their SLA, keyed by parcel id.");

    public static final Topic<String, Alert> MAINTENANCE_ALERTS = new Topic<>(
            "alerts.maintenance", String.class, Alert.class, 3, CleanupPolicy.DELETE, FOREVER,
            "Engine overheating and maintenance due, keyed by vehicle id.");

    public static final Topic<String, RuleDefinition> RULES = new Topic<>(
            "rules.definitions", String.class, RuleDefinition.class, 1, CleanupPolicy.COMPACT, FOREVER,
            "Versioned rule definitions, keyed by rule id; the latest version of each rule is the one in force.");

    public static final Topic<String, ReviewOutcomeRecorded> REVIEW_OUTCOMES = new Topic<>(
            "payments.transactions.reviews", String.class, ReviewOutcomeRecorded.class, 6, CleanupPolicy.DELETE, FOREVER,
            "Reviewers' verdicts (confirmed fraud / legitimate) on payments held for REVIEW, keyed by card token.");

    /**
     * The audit trail (PCI DSS 10.2): one event per audited action of the api and ingest (rule changes, review outcomes,
     * tool calls, decision reads, snapshot queries, denied requests). Keyed by the actor, so one caller's actions stay
     * in order on one partition, which is how a trail is read ("what did this subject do"); anonymous callers are keyed
     * by their address, so a flood of unauthenticated requests spreads over partitions by source. Kept forever like
     * every event log (PCI asks for a year at least).
     */
    public static final Topic<String, AuditEvent> AUDIT_EVENTS = new Topic<>(
            "audit.events", String.class, AuditEvent.class, 6, CleanupPolicy.DELETE, FOREVER,
            "Who did what, when, from where and with what outcome (PCI DSS 10.2.2), keyed by the actor.");

    /**
     * Raw change events of every captured table of the shop database (Debezium envelopes: before, after, source
     * position, op), all tables in one topic with one partition so the normaliser sees them in commit order (an
     * order before its lines, a customer before its address). Keys and values are Avro in the wire format under
     * per-record subjects ({@code <topic>-<record name>}), since the tables' schemas differ. Written by Kafka Connect
     * (exactly-once source), read by the CDC normalisation topology in ingest. Kept 7 days: the domain topics carry
     * the history; this is the capture buffer.
     */
    public static final Topic<byte[], byte[]> CDC_SHOP_CHANGES = new Topic<>(
            "shop.cdc.changes", byte[].class, byte[].class, 1, CleanupPolicy.DELETE, Optional.of(Duration.ofDays(7)),
            "Raw Debezium change events of the shop tables (customers, addresses, payment methods, orders, order "
                    + "lines, heartbeat), in commit order.");

    /**
     * OpenLineage run events (JSON, as the OpenLineage spec writes them, not Avro: any OpenLineage consumer reads them
     * as they are) of every processor: START when it starts, RUNNING every few minutes while it runs, COMPLETE or FAIL
     * when it stops. Keyed {@code <job namespace>/<job name>/<run id>} and compacted: the latest event of each run
     * stays, which is what the api's {@code GET /v1/lineage} folds into the graph; each processor's lineage file keeps
     * its starts and ends. One partition: a handful of events per start and a heartbeat per run every few minutes.
     */
    public static final Topic<String, String> LINEAGE_EVENTS = new Topic<>(
            "lineage.events", String.class, String.class, 1, CleanupPolicy.COMPACT, FOREVER,
            "OpenLineage run events (JSON) of the processors, keyed by job and run; latest per run.");

    /**
     * Copies of decisions for the ingest instance waiting for them (its reply partition, named by the request's
     * {@code streamhouse.reply.partition} header), when ingest runs with {@code streamhouse.authorize.replies=partition}:
     * each instance then reads the decisions of its own requests only, instead of every decision. The same key, value
     * bytes and headers as the decision on {@code payments.transactions.decisions}, which stays the record of the decision:
     * this topic is a delivery path, kept an hour, not landed in the lake and not replayed. Twelve partitions: up to
     * twelve ingest instances with a partition of their own (more share one, which only costs them reading each other's).
     */
    public static final Topic<String, TransactionDecision> TRANSACTION_DECISION_REPLIES = new Topic<>(
            "payments.transactions.decisions.replies", String.class, TransactionDecision.class, 12,
            CleanupPolicy.DELETE, Optional.of(Duration.ofHours(1)),
            "A copy of each decision for the ingest instance whose authorize request waits for it (its partition); kept an hour.");

    /**
     * Operational topics that are not domain event logs (not landed in the lake, not replayed, no dead-letter topic):
     * the lineage events (JSON) and the decisions' reply copies.
     */
    public static List<Topic<?, ?>> operational() {
        return List.of(LINEAGE_EVENTS, TRANSACTION_DECISION_REPLIES);
    }

    /** Raw capture topics, each with its dead-letter topic: what the platform creates besides {@link #all()}. */
    public static List<Topic<?, ?>> cdcRaw() {
        return List.of(CDC_SHOP_CHANGES);
    }

    /** Every domain topic, in the order the docs list them. */
    public static List<Topic<String, ?>> all() {
        return List.of(CUSTOMERS, CUSTOMER_PROFILES, ORDERS, TRANSACTION_REQUESTS, TRANSACTION_DECISIONS, VEHICLE_TELEMETRY,
                PARCEL_SCANS, FRAUD_ALERTS, PARCEL_ALERTS, MAINTENANCE_ALERTS, RULES, REVIEW_OUTCOMES, AUDIT_EVENTS);
    }

    /**
     * The dead-letter topic of a topic: records that could not be read or processed, byte for byte as they were,
     * with the reason, source topic, partition and offset in headers. Kept 30 days.
     */
    public static Topic<byte[], byte[]> deadLetterOf(Topic<?, ?> topic) {
        return new Topic<>(topic.name() + ".dlq", byte[].class, byte[].class, 1, CleanupPolicy.DELETE,
                DEAD_LETTER_RETENTION, "Records of " + topic.name() + " that could not be read or processed, with the reason.");
    }

    /** The event topics the CEP job reads in event time: each has a {@link #lateOf late-events} topic. */
    public static List<Topic<String, ?>> eventTimeInputs() {
        return List.of(CUSTOMERS, ORDERS, TRANSACTION_REQUESTS, VEHICLE_TELEMETRY, PARCEL_SCANS);
    }

    /**
     * The late-events topic of an event topic: events the CEP job received behind its watermark, in the same wire
     * format as on their own topic, with the reason in headers ({@code streamhouse.late.*}). An audit trail: the job
     * has reconciled them already. Kept 30 days.
     */
    public static <V> Topic<String, V> lateOf(Topic<String, V> topic) {
        return new Topic<>(topic.name() + ".late", String.class, topic.valueType(), 1, CleanupPolicy.DELETE,
                DEAD_LETTER_RETENTION, "Events of " + topic.name() + " that reached the CEP job behind its watermark, with the reason.");
    }

    /**
     * Every domain topic, its dead-letter topic and, for event-time inputs, its late-events topic; the raw capture topics
     * with theirs; the operational topics: what the platform creates.
     */
    public static List<Topic<?, ?>> allWithDeadLetters() {
        var topics = new java.util.ArrayList<Topic<?, ?>>();
        for (Topic<String, ?> t : all()) {
            topics.add(t);
            topics.add(deadLetterOf(t));
            if (eventTimeInputs().contains(t)) {
                topics.add(lateOf(t));
            }
        }
        for (Topic<?, ?> t : cdcRaw()) {
            topics.add(t);
            topics.add(deadLetterOf(t));
        }
        topics.addAll(operational());
        return List.copyOf(topics);
    }

    private Topics() {
    }
}
