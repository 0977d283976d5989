package io.streamhouse.detection.decision;

import io.streamhouse.detection.streams.DeadLetters;
import io.streamhouse.detection.streams.OutputTopics;
import io.streamhouse.domain.decision.Decision;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.decision.ReviewOutcomes;
import io.streamhouse.domain.decision.RuleSet;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

import java.time.Clock;
import java.util.Objects;

/**
 * Decides every authorization request: {@code payments.transactions.requested} → the card's always-current
 * activity + the rules in force → {@code payments.transactions.decisions}.
 * <p>
 * Requests are keyed by card token, so one card's payments arrive in order on one partition and its state
 * ({@value #CARD_ACTIVITY_STORE}, changelogged) is local: no repartition, which under exactly-once would cost a
 * transaction commit per hop. A request keyed otherwise is dead-lettered. Decisions are re-keyed by transaction id
 * on the way out.
 * <p>
 * The rules are data: the compacted {@code rules.definitions} topic is read into a global store on every instance,
 * and each request is decided by the rule set in that store when the request is processed, so a new rule version
 * applies without a restart and each decision records the rule-set version it used. Unreadable requests go to the
 * requests' dead-letter topic. Review outcomes ({@code payments.transactions.reviews}, keyed by card) come back in:
 * a confirmed fraud is written to {@code alerts.fraud} as the card's alert and so blocks its next payments. Run with {@code exactly_once_v2}: a request yields exactly one decision on the topic.
 */
public final class DecisionTopology {
    /** Global store of the latest definition of each rule (raw Avro, decoded when the rule set is built). */
    public static final String RULES_STORE = "rules-definitions-global";
    /** Recent payments per card (by card token), from which the card features are computed. */
    public static final String CARD_ACTIVITY_STORE = "card-activity";
    /** Customer profiles folded from the customer change events, keyed by customer id (feeds the profiles topic). */
    public static final String CUSTOMER_PROFILE_STORE = "customer-profiles";
    /** Every customer's profile, on every instance (from the compacted profiles topic), raw Avro. */
    public static final String CUSTOMER_PROFILES_GLOBAL = "customer-profiles-global";
    /** The latest fraud alert of every card and customer, on every instance, raw Avro. */
    public static final String FRAUD_ALERTS_GLOBAL = "fraud-alerts-global";
    static final String NAME = "decisions";

    /**
     * @param clock   the decider's wall clock, used only for the latency field of each decision
     * @param outputs where the decisions, profiles, review flags and dead letters go (a replay's shadow has its own);
     *                the profiles global table reads the profiles this topology writes, so it follows them
     */
    public record Config(Clock clock, OutputTopics outputs) {
        public Config {
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(outputs, "outputs");
        }

        public Config(Clock clock) {
            this(clock, OutputTopics.LIVE);
        }
    }

    public static Topology build(Config config, TopicSerdes serdes) {
        StreamsBuilder builder = new StreamsBuilder();
        addTo(builder, config, serdes);
        return builder.build();
    }

    public static void addTo(StreamsBuilder builder, Config config, TopicSerdes serdes) {
        OutputTopics outputs = config.outputs();
        var ruleSerde = serdes.valueSerde(Topics.RULES);
        builder.globalTable(Topics.RULES.name(),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("rules-source"),
                Materialized.as(RULES_STORE));

        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(CARD_ACTIVITY_STORE),
                Serdes.String(), serdes.stateSerde(CardActivity.class)));

        // Customer profiles: requests are keyed by card, customer events by customer, so the profile reaches the
        // decider through a compacted topic read as a global table (no repartition on the request path). A change
        // becomes visible to decisions one commit interval after it is processed.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(CUSTOMER_PROFILE_STORE),
                Serdes.String(), serdes.stateSerde(CustomerProfile.class)));
        DeadLetters.readOrDeadLetter(builder, Topics.CUSTOMERS, serdes.valueSerde(Topics.CUSTOMERS).deserializer(),
                        v -> inputKey(Topics.CUSTOMERS, v), "customers", outputs)
                .processValues(() -> new CustomerProfileProcessor(CUSTOMER_PROFILE_STORE), Named.as("customer-profiles-fold"),
                        CUSTOMER_PROFILE_STORE)
                .to(outputs.of(Topics.CUSTOMER_PROFILES.name()), Produced.with(Serdes.String(), serdes.valueSerde(Topics.CUSTOMER_PROFILES))
                        .withName("customer-profiles-sink"));
        builder.globalTable(outputs.of(Topics.CUSTOMER_PROFILES.name()),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("customer-profiles-global-source"),
                Materialized.as(CUSTOMER_PROFILES_GLOBAL));
        // Read through the input prefix like the stream inputs: a backfill hands the shadow a stitched copy (lake + log).
        builder.globalTable(outputs.input(Topics.FRAUD_ALERTS.name()),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("fraud-alerts-global-source"),
                Materialized.as(FRAUD_ALERTS_GLOBAL));

        // Review outcomes route back into the decision flow: a confirmed fraud becomes the card's latest fraud alert,
        // which the global table above hands to the flagged-subject rule for the card's next payments. A legitimate
        // outcome stays on the reviews topic only (it changes no decision).
        DeadLetters.readOrDeadLetter(builder, Topics.REVIEW_OUTCOMES, serdes.valueSerde(Topics.REVIEW_OUTCOMES).deserializer(),
                        v -> inputKey(Topics.REVIEW_OUTCOMES, v), "reviews", outputs)
                .flatMapValues(review -> ReviewOutcomes.flagOf(review).stream().toList(), Named.as("reviews-confirmed-fraud-flags"))
                .to(outputs.of(Topics.FRAUD_ALERTS.name()), Produced.with(Serdes.String(), serdes.valueSerde(Topics.FRAUD_ALERTS))
                        .withName("reviews-flag-sink"));

        var requestSerde = serdes.valueSerde(Topics.TRANSACTION_REQUESTS);
        var decisionSerde = serdes.valueSerde(Topics.TRANSACTION_DECISIONS);
        DeadLetters.readOrDeadLetter(builder, Topics.TRANSACTION_REQUESTS, requestSerde.deserializer(),
                        v -> inputKey(Topics.TRANSACTION_REQUESTS, v), "requests", outputs)
                .processValues(() -> new DecideProcessor(config.clock(), ruleSerde.deserializer(),
                                serdes.valueSerde(Topics.CUSTOMER_PROFILES).deserializer(),
                                serdes.valueSerde(Topics.FRAUD_ALERTS).deserializer()),
                        Named.as(NAME + "-decide"), CARD_ACTIVITY_STORE)
                .selectKey((card, decision) -> decision.getTransactionId(), Named.as(NAME + "-by-transaction"))
                .to(outputs.of(Topics.TRANSACTION_DECISIONS.name()),
                        Produced.with(Serdes.String(), decisionSerde).withName(NAME + "-sink"));
    }

    /**
     * The key a record of one of this topology's inputs must have: a stream input's aggregate id (anything else is
     * dead-lettered), an alert's subject (what the fraud-alert table is looked up by). A backfill keys the records it
     * re-publishes from the lake, which stores values only, with it.
     */
    public static String inputKey(Topic<?, ?> topic, Object value) {
        if (value instanceof TransactionAuthorizationRequested e) {
            return e.getCardToken();
        }
        if (value instanceof ReviewOutcomeRecorded e) {
            return e.getCardToken();
        }
        if (value instanceof CustomerEvent e) {
            return e.getCustomerId();
        }
        if (value instanceof Alert e) {
            return e.getSubject().getId();
        }
        throw new IllegalArgumentException(topic.name() + " is not an input of the decision topology");
    }

    /** What {@link DecideProcessor} does for one request, without Kafka Streams around it. */
    static TransactionDecision decide(TransactionAuthorizationRequested request, Features features, RuleSet rules, Clock clock) {
        Decision decision = rules.decide(request, features);
        return Decisions.toEvent(request, decision, clock.instant());
    }

    private DecisionTopology() {
    }
}
