package io.streamhouse.replay;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelScanEntry;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.state.SubjectAlerts;
import io.streamhouse.domain.state.VehicleHealth;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.projections.serving.OpenStores;
import io.streamhouse.projections.serving.ServingStores;
import io.streamhouse.projections.serving.ServingTopology;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.StreamsBuilder;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code replay rebuild} can rebuild: one of the api's two Kafka Streams applications, built by the same pure
 * function the api uses, with its stream inputs (what the cut covers), the outputs a shadow gets copies of, and the
 * stores compared with live.
 */
public enum Target {
    /** The serving projections (api's {@code ServingStreams}): parcels, vehicles, alerts, customers. */
    SERVING("streamhouse-serving",
            List.of(Topics.PARCEL_SCANS, Topics.VEHICLE_TELEMETRY, Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS,
                    Topics.MAINTENANCE_ALERTS, Topics.CUSTOMERS, Topics.ORDERS, Topics.TRANSACTION_DECISIONS),
            List.of(Topics.CUSTOMER_PROFILES),
            List.of(new Store(ServingStores.PARCEL_TRACKING, true, ParcelTracking.class),
                    new Store(ServingStores.PARCEL_SCANS, false, ParcelScanEntry.class),
                    new Store(ServingStores.VEHICLE_HEALTH, true, VehicleHealth.class),
                    new Store(ServingStores.SUBJECT_ALERTS, true, SubjectAlerts.class),
                    new Store(ServingStores.ALERT_FEED, false, Alert.class),
                    new Store(ServingStores.DECISION_FEED, false, TransactionDecision.class),
                    new Store(ServingStores.CUSTOMER_STATE, true, CustomerState.class),
                    new Store(ServingStores.CUSTOMER_PROFILES, false, CustomerProfile.class))),
    /**
     * The decision topology (the api's Quarkus Streams application): decisions, card activity. Its customer profiles
     * are a global store read from {@code shop.customers} (an input, so in the cut), not changelogged.
     */
    DECISIONS("streamhouse-api",
            List.of(Topics.CUSTOMERS, Topics.REVIEW_OUTCOMES, Topics.TRANSACTION_REQUESTS),
            List.of(Topics.TRANSACTION_DECISIONS, Topics.FRAUD_ALERTS),
            List.of(new Store(DecisionTopology.CARD_ACTIVITY_STORE, false, CardActivity.class)));

    /** A store compared key by key; {@code versioned} stores answer the version with the newest timestamp. */
    public record Store(String name, boolean versioned, Class<? extends SpecificRecord> valueType) {
        public String changelog(String applicationId) {
            return applicationId + "-" + name + "-changelog";
        }
    }

    private final String liveApplicationId;
    private final List<Topic<String, ?>> inputs;
    private final List<Topic<String, ?>> outputs;
    private final List<Store> stores;

    Target(String liveApplicationId, List<Topic<String, ?>> inputs, List<Topic<String, ?>> outputs, List<Store> stores) {
        this.liveApplicationId = liveApplicationId;
        this.inputs = inputs;
        this.outputs = outputs;
        this.stores = stores;
    }

    public static Target parse(String raw) {
        try {
            return valueOf(raw.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown projection '" + raw + "': choose serving, decisions, cep, api or all");
        }
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The api's application id for this target (serving's can be changed by {@code replay promote}). */
    public String defaultLiveApplicationId() {
        return liveApplicationId;
    }

    /** Named after the default live id, so a shadow's name does not grow with every promotion. */
    public String shadowApplicationId(String shadowId) {
        return liveApplicationId + "-shadow-" + shadowId;
    }

    /** Where a shadow writes: its application id and a dot before each live output's name. */
    public static OutputTopics shadowOutputs(String shadowApplicationId) {
        return new OutputTopics(shadowApplicationId + ".");
    }

    public List<String> inputTopics() {
        return inputs.stream().map(Topic::name).toList();
    }

    /** The topics a shadow writes to (outputs and dead letters), as the live ones they copy. */
    public List<Topic<?, ?>> liveOutputs() {
        List<Topic<?, ?>> all = new ArrayList<>(outputs);
        inputs.forEach(t -> all.add(Topics.deadLetterOf(t)));
        return all;
    }

    /** The application's repartition topics (Streams names them {@code <application id>-<name>-repartition}). */
    public List<String> repartitionTopics(String applicationId) {
        return switch (this) {
            case SERVING -> List.of(applicationId + "-" + ServingStores.CUSTOMER_ORDERS_REPARTITION + "-repartition",
                    applicationId + "-" + ServingStores.CUSTOMER_DECISIONS_REPARTITION + "-repartition");
            case DECISIONS -> List.of(applicationId + "-" + DecisionTopology.DECIDED_TOPIC);
        };
    }

    /**
     * Topics read whole as global tables that a backfill stitches too (through the input prefix). The rules are not
     * among them: {@code rules.definitions} is compacted, its log keeps every rule's latest version from offset 0.
     */
    public List<Topic<String, ?>> globalInputs() {
        return switch (this) {
            case SERVING -> List.of();
            case DECISIONS -> List.of(Topics.FRAUD_ALERTS);
        };
    }

    /** The key a record of {@code topic} (an input or global input) must have: the topology's own check. */
    public String inputKey(Topic<?, ?> topic, Object value) {
        return switch (this) {
            case SERVING -> ServingTopology.inputKey(topic, value);
            case DECISIONS -> DecisionTopology.inputKey(topic, value);
        };
    }

    /**
     * Inputs read by a global store's own processor rather than by a stream task (decisions: the customer profiles,
     * folded from {@code shop.customers}). They are in the cut, which bounds what that processor applies, but the
     * group commits no offsets on them: a shadow is caught up when its stream inputs are.
     */
    public List<String> globalStoreInputTopics() {
        return switch (this) {
            case SERVING -> List.of();
            case DECISIONS -> List.of(Topics.CUSTOMERS.name());
        };
    }

    /** The part of {@code cut} the group commits: without the global store inputs, as read through {@code outputs}. */
    public Cut committedPart(Cut cut, OutputTopics outputs) {
        return cut.without(globalStoreInputTopics().stream().map(outputs::input).toList());
    }

    /** The stream inputs as typed topics. */
    public List<Topic<String, ?>> inputs() {
        return inputs;
    }

    public List<Store> stores() {
        return stores;
    }

    /**
     * Whether a shadow of this target must run exactly-once: the decision topology reads its own output back through
     * a global table (a confirmed review outcome becomes a fraud alert on {@code alerts.fraud}), and what a decision
     * saw of it depends on when it became visible (committed, in live). The serving topology reads only the inputs
     * and its own repartition topics (see {@link ShadowRun#settings}).
     */
    public boolean shadowExactlyOnce() {
        return this == DECISIONS;
    }

    /**
     * Serving states a shadow's folds keep decoded per store partition (their previous states, read from memory
     * instead of decoded from RocksDB on every event); about 60,000 keys per store at most.
     */
    static final int SHADOW_KEPT_KEYS_PER_PARTITION = 10_000;

    /**
     * Adds the live topology, writing to {@code outputs}, to {@code builder}: the api's own pure builders. {@code cut}
     * also bounds what the decision topology's global stores apply; {@code alertsSeen} is how far each decision reads its
     * card's and customer's fraud alerts (what live had read: {@link Verify#alertsSeen}).
     */
    public void addTo(StreamsBuilder builder, OutputTopics outputs, TopicSerdes serdes, Cut cut, DecisionTopology.AlertsSeenBy alertsSeen) {
        switch (this) {
            case SERVING -> ServingTopology.addTo(builder, new ServingTopology.Config(ServingStores.DEFAULT_HISTORY_RETENTION,
                    ServingStores.DEFAULT_HISTORY_SEGMENT, outputs), serdes, OpenStores.keepingWrites(SHADOW_KEPT_KEYS_PER_PARTITION));
            // The clock only stamps the informational latency and recordedAt, which the comparison leaves out.
            case DECISIONS -> DecisionTopology.addTo(builder, new DecisionTopology.Config(Clock.systemUTC(), outputs, cut.offsets(), alertsSeen), serdes);
        }
    }
}
