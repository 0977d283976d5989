package io.streamhouse.detection.decision;

import io.streamhouse.plumbing.DeadLetters;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.decision.Decision;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.decision.ReviewOutcomes;
import io.streamhouse.domain.decision.RuleSet;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertsSeen;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.state.DecidedTransaction;
import io.streamhouse.domain.state.FraudAlertHistory;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Decides every authorization request: {@code payments.transactions.requested} → the card's always-current
 * activity + the rules in force → the decided topic → the first decision of the transaction id →
 * {@code payments.transactions.decisions}.
 * <p>
 * Requests are keyed by card token, so one card's payments arrive in order on one partition and its state
 * ({@value #CARD_ACTIVITY_STORE}, changelogged) is local. A request keyed otherwise is dead-lettered. The decide step
 * ({@link DecideProcessor}) writes each decision, already encoded, keyed by transaction id to the decided topic
 * ({@value #DECIDED_TOPIC}, after the application id); the first-decision step ({@link FirstDecision}) keeps the first
 * decision of every transaction id ({@value #FIRST_DECISIONS_STORE}) and writes it to the decisions topic, the first
 * time and for every repeat. That is what makes a decision final without a transaction: whatever is decided again after
 * a crash, a retry or a rule change, the decisions topic only ever holds the first decision of a transaction id
 * (duplicates are the same bytes). A request that names a reply partition also gets a copy of its decision there, on
 * {@code payments.transactions.decisions.replies}, for the ingest instance waiting for it. So the application can run
 * at-least-once (the default: the answer waits for no commit) or {@code exactly_once_v2} (no duplicates, at the cost of
 * a commit per hop); docs/decisions.md, "The two guarantees", says what each guarantees.
 * <p>
 * The rules are data: the compacted {@code rules.definitions} topic is read into a global store on every instance,
 * and each request is decided by the rule set in that store when the request is processed, so a new rule version
 * applies without a restart and each decision records the rule-set version it used. Unreadable requests go to the
 * requests' dead-letter topic, and so does a request under a transaction id already decided for a different request.
 * Review outcomes ({@code payments.transactions.reviews}, keyed by card) come back in:
 * a confirmed fraud is written to {@code alerts.fraud} as the card's alert and so blocks its next payments.
 */
public final class DecisionTopology {
    /** Global store of the latest definition of each rule (raw Avro, decoded when the rule set is built). */
    public static final String RULES_STORE = "rules-definitions-global";
    /** Recent payments per card (by card token), from which the card features are computed. */
    public static final String CARD_ACTIVITY_STORE = "card-activity";
    /** Every customer's profile, on every instance: a global store folded from {@code shop.customers} itself. */
    public static final String CUSTOMER_PROFILES_GLOBAL = "customer-profiles-global";
    /**
     * Every card's and customer's recent records of {@code alerts.fraud} with their offsets, on every instance
     * ({@code FraudAlertHistory}, {@link FraudAlertUpdater}).
     */
    public static final String FRAUD_ALERTS_GLOBAL = "fraud-alert-history-global";
    /**
     * The first decision of each transaction id (by transaction id, window store: kept for {@link Config#remember()}
     * of stream time), changelogged, uncached: what a repeated or reused transaction id is answered with.
     */
    public static final String FIRST_DECISIONS_STORE = "first-decisions";
    private static final String DECIDED_TOPIC_NAME = "decided";
    /** The decided topic's name after the application id: Streams' repartition topic between the two steps. */
    public static final String DECIDED_TOPIC = DECIDED_TOPIC_NAME + "-repartition";
    /** How long a transaction id's first decision is remembered by default (stream time). */
    public static final Duration DEFAULT_REMEMBER = Duration.ofHours(24);
    static final String NAME = "decisions";

    /**
     * @param clock      the decider's wall clock, used only for the latency field of each decision
     * @param outputs    where the decisions, review flags and dead letters go (a replay's shadow has its own)
     * @param globalEnds per partition of a global store's input, the first offset the store must not apply: a
     *                   rebuild's cut (Streams reads global inputs to their end; the cut filter of a rebuild's stream
     *                   tasks does not see them); empty for live
     * @param remember   how long (stream time) the first decision of a transaction id is kept: a repeat or a reused
     *                   transaction id after that is decided as a new request
     * @param alertsSeen how far each decision may read its card's and customer's fraud alerts: live, everything the
     *                   global store holds; a rebuild, what live had read when it decided the same transaction
     */
    public record Config(Clock clock, OutputTopics outputs, Map<TopicPartition, Long> globalEnds, Duration remember,
                         AlertsSeenBy alertsSeen) {
        public Config {
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(outputs, "outputs");
            Objects.requireNonNull(alertsSeen, "alertsSeen");
            globalEnds = Map.copyOf(globalEnds);
            if (remember.isNegative() || remember.isZero()) {
                throw new IllegalArgumentException("the first decisions must be remembered for a positive time, was " + remember);
            }
        }

        public Config(Clock clock, OutputTopics outputs, Map<TopicPartition, Long> globalEnds, Duration remember) {
            this(clock, outputs, globalEnds, remember, AlertsSeenBy.ALL);
        }

        public Config(Clock clock, OutputTopics outputs, Map<TopicPartition, Long> globalEnds, AlertsSeenBy alertsSeen) {
            this(clock, outputs, globalEnds, DEFAULT_REMEMBER, alertsSeen);
        }

        public Config(Clock clock, OutputTopics outputs, Map<TopicPartition, Long> globalEnds) {
            this(clock, outputs, globalEnds, DEFAULT_REMEMBER);
        }

        public Config(Clock clock, OutputTopics outputs) {
            this(clock, outputs, Map.of());
        }

        public Config(Clock clock) {
            this(clock, OutputTopics.LIVE);
        }
    }

    /**
     * How far a decision reads the fraud alerts of its card and customer, by transaction id: the offsets on
     * {@code alerts.fraud} a live decision recorded ({@link TransactionDecision#getAlertsSeen()}), or null for every
     * record the global store holds.
     */
    @FunctionalInterface
    public interface AlertsSeenBy {
        /** Live: every record held. */
        AlertsSeenBy ALL = transactionId -> null;

        AlertsSeen of(String transactionId);
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

        // Customer profiles: requests are keyed by card, customer events by customer, so the profiles reach the
        // decider through a global store (no repartition on the request path), folded from shop.customers itself
        // rather than from the folded profiles topic: Streams catches a global store up to its input's end before any
        // task runs, so a rebuild (and a catch-up after a restart) decides against every change logged before it, and
        // the decider looks the changes up by the request's event time. A change reaches live decisions as soon as the
        // global thread has read it (no commit interval, no second hop).
        builder.addGlobalStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(CUSTOMER_PROFILES_GLOBAL),
                        Serdes.String(), underOwnSubject(CUSTOMER_PROFILES_GLOBAL, serdes.stateSerde(CustomerProfile.class))).withLoggingDisabled(),
                outputs.input(Topics.CUSTOMERS.name()),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("customer-profiles-global-source"),
                () -> new CustomerProfileUpdater(serdes.valueSerde(Topics.CUSTOMERS).deserializer(), config.globalEnds()));
        // Fraud alerts: each subject's recent records with their offsets, so that a decision records how far it had
        // read them and a rebuild reads as far (an alert reaches live decisions when the CEP job commits it, after the
        // payments it is about). Read through the input prefix like the stream inputs: a backfill hands the shadow a
        // stitched copy (lake + log).
        builder.addGlobalStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(FRAUD_ALERTS_GLOBAL),
                        Serdes.String(), underOwnSubject(FRAUD_ALERTS_GLOBAL, serdes.stateSerde(FraudAlertHistory.class))).withLoggingDisabled(),
                outputs.input(Topics.FRAUD_ALERTS.name()),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("fraud-alerts-global-source"),
                () -> new FraudAlertUpdater(config.globalEnds()));

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
        String decisionsTopic = outputs.of(Topics.TRANSACTION_DECISIONS.name());
        // Replies are for callers waiting on live decisions; a replay's shadow (prefixed outputs) writes none.
        boolean replies = outputs.prefix().isEmpty();
        builder.addStateStore(Stores.windowStoreBuilder(
                        Stores.persistentWindowStore(FIRST_DECISIONS_STORE, config.remember(), Duration.ofMillis(1), false),
                        Serdes.String(), serdes.stateSerde(DecidedTransaction.class))
                .withCachingDisabled());
        var written = DeadLetters.readDecodedOrDeadLetter(builder, Topics.TRANSACTION_REQUESTS, requestSerde.deserializer(),
                        v -> inputKey(Topics.TRANSACTION_REQUESTS, v), "requests", outputs)
                .processValues(() -> new DecideProcessor(config.clock(), ruleSerde.deserializer(),
                                serdes.valueSerde(Topics.FRAUD_ALERTS).deserializer(), decisionSerde.serializer(), decisionsTopic,
                                config.alertsSeen()),
                        Named.as(NAME + "-decide"), CARD_ACTIVITY_STORE)
                .selectKey((card, decided) -> decided.getTransactionId(), Named.as(NAME + "-by-transaction"))
                .repartition(Repartitioned.with(Serdes.String(), serdes.stateSerde(DecidedTransaction.class))
                        .withName(DECIDED_TOPIC_NAME))
                .processValues(() -> new FirstDecision(outputs.input(Topics.TRANSACTION_REQUESTS.name()), NAME + "-first", replies),
                        Named.as(NAME + "-first"), FIRST_DECISIONS_STORE)
                .split(Named.as(NAME + "-first-"))
                .branch((id, out) -> out.deadLetter(), Branched.as("dead"))
                .branch((id, out) -> out.reply(), Branched.as("reply"))
                .defaultBranch(Branched.as("decision"));
        written.get(NAME + "-first-dead")
                .mapValues(FirstDecision.Out::value, Named.as(NAME + "-conflict-raw"))
                .to(outputs.deadLetterOf(Topics.TRANSACTION_REQUESTS),
                        Produced.with(Serdes.String(), Serdes.ByteArray()).withName(NAME + "-conflict-dead-letter-sink"));
        written.get(NAME + "-first-decision")
                .mapValues(FirstDecision.Out::value, Named.as(NAME + "-decision-bytes"))
                .to(decisionsTopic, Produced.with(Serdes.String(), Serdes.ByteArray()).withName(NAME + "-sink"));
        if (replies) {
            // Each copy to the partition its request named: the partitioner sees the value, so the value carries it.
            Serializer<FirstDecision.Out> replyBytes = (topic, out) -> out.value();
            written.get(NAME + "-first-reply")
                    .to(Topics.TRANSACTION_DECISION_REPLIES.name(), Produced.with(Serdes.String(),
                                    Serdes.serdeFrom(replyBytes, (topic, bytes) -> { throw new UnsupportedOperationException("write-only"); }))
                            .withStreamPartitioner(DecisionTopology::replyPartition)
                            .withName(NAME + "-reply-sink"));
        }
    }

    /** The reply partition a copy was addressed to, when the replies topic has it; else the key's (nobody reads it then). */
    static Optional<Set<Integer>> replyPartition(String topic, String key, FirstDecision.Out out, int partitions) {
        return out.replyPartition() < partitions ? Optional.of(Set.of(out.replyPartition())) : Optional.empty();
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

    /**
     * A global store's serde: Streams names the store's source topic (say {@code shop.customers}) when it serializes
     * the store's values, and the registry's subject follows the topic, which holds other records (customer events);
     * the store's values get a subject of their own ({@code <store>-value}) instead.
     */
    private static <T> Serde<T> underOwnSubject(String store, Serde<T> inner) {
        Serializer<T> serializer = (topic, value) -> inner.serializer().serialize(store, value);
        Deserializer<T> deserializer = (topic, bytes) -> inner.deserializer().deserialize(store, bytes);
        return Serdes.serdeFrom(serializer, deserializer);
    }

    /** What {@link DecideProcessor} does for one request, without Kafka Streams around it. */
    static TransactionDecision decide(TransactionAuthorizationRequested request, Features features, RuleSet rules, Clock clock) {
        Decision decision = rules.decide(request, features);
        return Decisions.toEvent(request, decision, clock.instant());
    }

    private DecisionTopology() {
    }
}
