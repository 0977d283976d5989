package io.streamhouse.projections.serving;

import io.streamhouse.plumbing.DeadLetters;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelScanEntry;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.state.SubjectAlerts;
import io.streamhouse.domain.state.VehicleHealth;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The serving projections: parcel tracking, vehicle health, alerts per subject plus the alert feed, and customer
 * state, each in a named store that the api queries by key (versioned stores, so a key's history answers
 * {@code asOf}). Unreadable or wrongly keyed input goes to the topic's dead-letter topic.
 *
 * <p>Keying and repartitions. Scans, telemetry, customer changes and alerts are keyed by the id their store is keyed
 * by, so they are folded where they land, with no repartition. Orders (keyed by order id) and decisions (keyed by
 * transaction id) are re-keyed by customer id through two named repartition topics: under exactly-once each hop is
 * only readable once the upstream transaction commits, so customer state trails orders and decisions by up to one
 * commit interval more than the other stores. Joins that would need a further repartition (the alert topics have 3
 * partitions, the entity topics 6; a parcel's vehicle lives on the vehicle's partition) are done at query time
 * instead, by key lookups on the stores, which costs a lookup rather than a commit interval and a topic.
 * Decisions without a customer id cannot be attributed to a customer and are not folded here (they stay queryable by
 * transaction id). An event a fold cannot apply goes to its source topic's dead-letter topic (re-encoded, with the
 * reason); an alert's is chosen by its category, since the three alert topics are merged before the fold.
 */
public final class ServingTopology {

    /**
     * @param historyRetention how far back a store keeps versions, i.e. how old an {@code asOf} can be
     * @param historySegment   the versioned stores' segment interval. Streams keeps all the versions of one key that
     *                         fall in one segment in a single RocksDB value, read and rewritten whole on every put of
     *                         that key; so a key updated every few seconds makes each put cost as much as all its
     *                         versions in the segment. Streams' default for a 7-day retention is 7 hours; a short
     *                         segment bounds a put, at the price of one RocksDB read per segment that an
     *                         {@code asOf} query reaches back over (docs/serving.md, "Segments")
     * @param outputs          where the dead letters go (a replay's shadow has its own; the stores' changelogs are
     *                         named by the application id, so they follow it)
     */
    public record Config(Duration historyRetention, Duration historySegment, OutputTopics outputs) {
        public Config(Duration historyRetention, Duration historySegment) {
            this(historyRetention, historySegment, OutputTopics.LIVE);
        }

        public Config {
            Objects.requireNonNull(historyRetention, "historyRetention");
            Objects.requireNonNull(historySegment, "historySegment");
            Objects.requireNonNull(outputs, "outputs");
            if (historyRetention.isNegative() || historyRetention.isZero()) {
                throw new IllegalArgumentException("historyRetention must be positive");
            }
            if (historySegment.isNegative() || historySegment.isZero()) {
                throw new IllegalArgumentException("historySegment must be positive");
            }
        }

        public static Config defaults() {
            return new Config(ServingStores.DEFAULT_HISTORY_RETENTION, ServingStores.DEFAULT_HISTORY_SEGMENT);
        }
    }

    public static Topology build(Config config, TopicSerdes serdes) {
        return build(config, serdes, new OpenStores());
    }

    /** @param openStores where the running tasks register their open versioned stores, for direct key lookups */
    public static Topology build(Config config, TopicSerdes serdes, OpenStores openStores) {
        StreamsBuilder builder = new StreamsBuilder();
        addTo(builder, config, serdes, openStores);
        return builder.build();
    }

    public static void addTo(StreamsBuilder builder, Config config, TopicSerdes serdes, OpenStores openStores) {
        OutputTopics outputs = config.outputs();
        addVersionedStore(builder, config, ServingStores.PARCEL_TRACKING, serdes.stateSerde(ParcelTracking.class));
        addVersionedStore(builder, config, ServingStores.VEHICLE_HEALTH, serdes.stateSerde(VehicleHealth.class));
        addVersionedStore(builder, config, ServingStores.SUBJECT_ALERTS, serdes.stateSerde(SubjectAlerts.class));
        addVersionedStore(builder, config, ServingStores.CUSTOMER_STATE, serdes.stateSerde(CustomerState.class));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ServingStores.ALERT_FEED),
                Serdes.String(), serdes.stateSerde(Alert.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ServingStores.DECISION_FEED),
                Serdes.String(), serdes.stateSerde(TransactionDecision.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ServingStores.PARCEL_SCANS),
                Serdes.String(), serdes.stateSerde(ParcelScanEntry.class)));

        deadLetter(read(builder, serdes, outputs, Topics.PARCEL_SCANS, v -> inputKey(Topics.PARCEL_SCANS, v), "serving-parcels")
                .process(() -> new FoldIntoVersionedStore<ParcelScanned, ParcelTracking>(ServingStores.PARCEL_TRACKING,
                                (prev, key, e) -> Folds.parcel(prev, e), e -> e.getEnvelope().getOccurredAt(),
                                encoder(serdes, Topics.PARCEL_SCANS), e -> deadLetterTopic(outputs, Topics.PARCEL_SCANS), openStores,
                                new ParcelScans.Log(openStores)),
                        Named.as("serving-parcel-tracking"), ServingStores.PARCEL_TRACKING, ServingStores.PARCEL_SCANS),
                "serving-parcel-tracking");

        deadLetter(read(builder, serdes, outputs, Topics.VEHICLE_TELEMETRY, v -> inputKey(Topics.VEHICLE_TELEMETRY, v), "serving-telemetry")
                .process(() -> new FoldIntoVersionedStore<VehicleTelemetry, VehicleHealth>(ServingStores.VEHICLE_HEALTH,
                                (prev, key, e) -> Folds.vehicle(prev, e), e -> e.getEnvelope().getOccurredAt(),
                                encoder(serdes, Topics.VEHICLE_TELEMETRY), e -> deadLetterTopic(outputs, Topics.VEHICLE_TELEMETRY), openStores),
                        Named.as("serving-vehicle-health"), ServingStores.VEHICLE_HEALTH), "serving-vehicle-health");

        KStream<String, Alert> alerts = read(builder, serdes, outputs, Topics.FRAUD_ALERTS, v -> inputKey(Topics.FRAUD_ALERTS, v), "serving-fraud-alerts")
                .merge(read(builder, serdes, outputs, Topics.PARCEL_ALERTS, v -> inputKey(Topics.PARCEL_ALERTS, v), "serving-parcel-alerts"),
                        Named.as("serving-alerts-merge-parcels"))
                .merge(read(builder, serdes, outputs, Topics.MAINTENANCE_ALERTS, v -> inputKey(Topics.MAINTENANCE_ALERTS, v), "serving-maintenance-alerts"),
                        Named.as("serving-alerts-merge-maintenance"));
        deadLetter(alerts.process(() -> new FoldIntoVersionedStore<Alert, SubjectAlerts>(ServingStores.SUBJECT_ALERTS,
                        (prev, key, e) -> Folds.alerts(prev, e), e -> e.getEnvelope().getOccurredAt(),
                        encoder(serdes, Topics.FRAUD_ALERTS), e -> alertDeadLetterTopic(outputs, e), openStores),
                Named.as("serving-alerts-by-subject"), ServingStores.SUBJECT_ALERTS), "serving-alerts-by-subject");
        alerts.process(AppendToFeed::new, Named.as("serving-alert-feed"), ServingStores.ALERT_FEED);

        KStream<String, CustomerEvent> customerEvents = read(builder, serdes, outputs, Topics.CUSTOMERS, v -> inputKey(Topics.CUSTOMERS, v),
                "serving-customers");
        // The compacted profiles topic (a product, landed in the lake): each customer's profile after each change.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ServingStores.CUSTOMER_PROFILES),
                Serdes.String(), serdes.stateSerde(CustomerProfile.class)));
        customerEvents.processValues(() -> new CustomerProfileProcessor(ServingStores.CUSTOMER_PROFILES), Named.as("serving-customer-profiles"),
                        ServingStores.CUSTOMER_PROFILES)
                .to(outputs.of(Topics.CUSTOMER_PROFILES.name()), Produced.with(Serdes.String(), serdes.valueSerde(Topics.CUSTOMER_PROFILES))
                        .withName("serving-customer-profiles-sink"));
        KStream<String, Object> customers = customerEvents.mapValues(v -> (Object) v, Named.as("serving-customers-as-input"));
        KStream<String, Object> orders = read(builder, serdes, outputs, Topics.ORDERS, v -> inputKey(Topics.ORDERS, v), "serving-orders")
                .selectKey((k, v) -> v.getCustomerId(), Named.as("serving-orders-by-customer"))
                .repartition(Repartitioned.<String, OrderEvent>as(ServingStores.CUSTOMER_ORDERS_REPARTITION)
                        .withKeySerde(Serdes.String()).withValueSerde(serdes.valueSerde(Topics.ORDERS))
                        .withNumberOfPartitions(Topics.CUSTOMERS.partitions()))
                .mapValues(v -> (Object) v, Named.as("serving-orders-as-input"));
        KStream<String, TransactionDecision> decided = read(builder, serdes, outputs, Topics.TRANSACTION_DECISIONS,
                v -> inputKey(Topics.TRANSACTION_DECISIONS, v), "serving-decisions");
        decided.process(() -> new AppendToDecisionFeed(ServingStores.DECISION_FEED_KEPT), Named.as("serving-decision-feed"),
                ServingStores.DECISION_FEED);
        KStream<String, Object> decisions = decided
                .filter((k, v) -> v.getCustomerId() != null, Named.as("serving-decisions-with-customer"))
                .selectKey((k, v) -> v.getCustomerId(), Named.as("serving-decisions-by-customer"))
                .repartition(Repartitioned.<String, TransactionDecision>as(ServingStores.CUSTOMER_DECISIONS_REPARTITION)
                        .withKeySerde(Serdes.String()).withValueSerde(serdes.valueSerde(Topics.TRANSACTION_DECISIONS))
                        .withNumberOfPartitions(Topics.CUSTOMERS.partitions()))
                .mapValues(v -> (Object) v, Named.as("serving-decisions-as-input"));
        var orderEncoder = encoder(serdes, Topics.ORDERS);
        var decisionEncoder = encoder(serdes, Topics.TRANSACTION_DECISIONS);
        var customerEncoder = encoder(serdes, Topics.CUSTOMERS);
        deadLetter(customers.merge(orders, Named.as("serving-customer-merge-orders"))
                .merge(decisions, Named.as("serving-customer-merge-decisions"))
                .process(() -> new FoldIntoVersionedStore<Object, CustomerState>(ServingStores.CUSTOMER_STATE,
                                Folds::customer, ServingTopology::eventTimeOfCustomerInput,
                                e -> e instanceof OrderEvent ? orderEncoder.apply((OrderEvent) e)
                                        : e instanceof TransactionDecision ? decisionEncoder.apply((TransactionDecision) e)
                                        : customerEncoder.apply((CustomerEvent) e),
                                e -> deadLetterTopic(outputs, e instanceof OrderEvent ? Topics.ORDERS
                                        : e instanceof TransactionDecision ? Topics.TRANSACTION_DECISIONS : Topics.CUSTOMERS), openStores),
                        Named.as("serving-customer-state"), ServingStores.CUSTOMER_STATE), "serving-customer-state");
    }

    private static <V> KStream<String, V> read(StreamsBuilder builder, TopicSerdes serdes, OutputTopics outputs, Topic<String, V> topic,
                                               java.util.function.Function<V, String> key, String name) {
        return DeadLetters.readOrDeadLetter(builder, topic, serdes.valueSerde(topic).deserializer(), key, name, outputs);
    }

    private static <V extends org.apache.avro.specific.SpecificRecord> void addVersionedStore(
            StreamsBuilder builder, Config config, String name, Serde<V> serde) {
        builder.addStateStore(Stores.versionedKeyValueStoreBuilder(
                Stores.persistentVersionedKeyValueStore(name, config.historyRetention(), config.historySegment()),
                Serdes.String(), serde));
    }

    /** Events a fold could not apply, to the dead-letter topic named in their headers. */
    static void deadLetter(KStream<String, byte[]> failed, String name) {
        failed.to((key, value, context) -> new String(
                        context.headers().lastHeader(FoldIntoVersionedStore.DEAD_LETTER_TOPIC).value(), StandardCharsets.UTF_8),
                Produced.with(Serdes.String(), Serdes.ByteArray()).withName(name + "-dead-letter-sink"));
    }

    private static <V> java.util.function.Function<V, byte[]> encoder(TopicSerdes serdes, Topic<String, V> topic) {
        var serializer = serdes.valueSerde(topic).serializer();
        return v -> serializer.serialize(topic.name(), v);
    }

    private static String deadLetterTopic(OutputTopics outputs, Topic<?, ?> topic) {
        return outputs.deadLetterOf(topic);
    }

    private static String alertDeadLetterTopic(OutputTopics outputs, Alert alert) {
        switch (alert.getCategory()) {
            case PARCEL:
                return deadLetterTopic(outputs, Topics.PARCEL_ALERTS);
            case MAINTENANCE:
                return deadLetterTopic(outputs, Topics.MAINTENANCE_ALERTS);
            default:
                return deadLetterTopic(outputs, Topics.FRAUD_ALERTS);
        }
    }

    /**
     * The key a record of one of this topology's stream inputs must have (its value's aggregate id; anything else is
     * dead-lettered). A backfill uses it to key the records it re-publishes from the lake, which stores values only.
     */
    public static String inputKey(Topic<?, ?> topic, Object value) {
        if (value instanceof ParcelScanned e) {
            return e.getParcelId();
        }
        if (value instanceof VehicleTelemetry e) {
            return e.getVehicleId();
        }
        if (value instanceof Alert e) {
            return subjectOf(e);
        }
        if (value instanceof CustomerEvent e) {
            return e.getCustomerId();
        }
        if (value instanceof OrderEvent e) {
            return e.getOrderId();
        }
        if (value instanceof TransactionDecision e) {
            return e.getTransactionId();
        }
        throw new IllegalArgumentException(topic.name() + " is not a stream input of the serving topology");
    }

    private static String subjectOf(Alert alert) {
        return alert.getSubject().getId();
    }

    private static Instant eventTimeOfCustomerInput(Object event) {
        if (event instanceof CustomerEvent) {
            return ((CustomerEvent) event).getEnvelope().getOccurredAt();
        }
        if (event instanceof OrderEvent) {
            return ((OrderEvent) event).getEnvelope().getOccurredAt();
        }
        return ((TransactionDecision) event).getEnvelope().getOccurredAt();
    }

    /** Every alert into its task's feed store under a time-sortable key (an alert id seen again overwrites itself). */
    private static final class AppendToFeed implements Processor<String, Alert, Void, Void> {
        private KeyValueStore<String, Alert> feed;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            feed = context.getStateStore(ServingStores.ALERT_FEED);
        }

        @Override
        public void process(Record<String, Alert> record) {
            Alert alert = record.value();
            feed.put(AlertFeedKeys.of(alert.getEnvelope().getOccurredAt(), alert.getAlertId()), alert);
        }
    }

    /**
     * Every decision into its task's decision feed under a time-sortable key (when it was decided, then its transaction
     * id; a decision seen again overwrites itself), keeping the newest {@code kept}: once the feed holds more than a
     * tenth over, the oldest are deleted down to {@code kept}. The count is exact (a repeat does not count) and is read
     * from the store when the task starts, so when a trim happens depends only on the records processed and what the
     * store holds: a rebuild from the log keeps the same entries as live, also across a restart of either.
     */
    static final class AppendToDecisionFeed implements Processor<String, TransactionDecision, Void, Void> {
        private final int kept;
        private final int slack;
        private KeyValueStore<String, TransactionDecision> feed;
        /** Entries in the feed. */
        private long count;

        AppendToDecisionFeed(int kept) {
            this.kept = kept;
            this.slack = Math.max(1, kept / 10);
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            feed = context.getStateStore(ServingStores.DECISION_FEED);
            count = 0;
            try (var all = feed.all()) {
                while (all.hasNext()) {
                    all.next();
                    count++;
                }
            }
        }

        @Override
        public void process(Record<String, TransactionDecision> record) {
            TransactionDecision decision = record.value();
            String key = AlertFeedKeys.of(decision.getEnvelope().getRecordedAt(), decision.getTransactionId());
            if (feed.get(key) == null) {
                count++;
            }
            feed.put(key, decision);
            if (count > kept + slack) {
                trim();
            }
        }

        /** Deletes all but the newest {@code kept} entries. */
        private void trim() {
            java.util.List<String> older = new java.util.ArrayList<>();
            long seen = 0;
            try (var newestFirst = feed.reverseAll()) {
                while (newestFirst.hasNext()) {
                    String key = newestFirst.next().key;
                    if (++seen > kept) {
                        older.add(key);
                    }
                }
            }
            older.forEach(feed::delete);
            count = seen - older.size();
        }
    }

    private ServingTopology() {
    }
}
