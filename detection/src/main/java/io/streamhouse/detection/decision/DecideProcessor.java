package io.streamhouse.detection.decision;

import io.streamhouse.plumbing.Decoded;
import io.streamhouse.domain.decision.CardActivities;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.decision.FraudAlerts;
import io.streamhouse.domain.decision.RuleSet;
import io.streamhouse.domain.decision.Rules;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertsSeen;
import io.streamhouse.domain.events.Fingerprints;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.state.DecidedTransaction;
import io.streamhouse.domain.state.FraudAlertHistory;
import io.streamhouse.domain.state.HeldAlert;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Records each request in its card's activity, computes the card's features as of the request's event time, and
 * applies the rule set currently in the global rules store. What it emits is a {@link DecidedTransaction}: the decision
 * already encoded as it will be written on the decisions topic, with the request's fingerprint and the request itself,
 * for {@link FirstDecision}, which keeps the first decision of each transaction id and is the only step that writes
 * decisions. A request processed twice (a retry, or the replay of a crashed task's uncommitted input) is recorded in the
 * card's activity once (per transaction id) and may be decided twice here; only the first reaches the decisions topic.
 * <p>Fraud alerts: of the card's and the customer's alert records the global store holds (up to the offsets a rebuild
 * was given: what live had read), the one that applies at the request's event time ({@link FraudAlerts#applying});
 * the decision records the newest offset it read of each ({@code alertsSeen}).
 * <p>The rules store is read for every request (a handful of small rules), so a new rule version is used from the
 * next request on; the rule set is built again only when the store changed. A definition that cannot be
 * read or applied is skipped with a warning rather than stopping decisions (the admin endpoint validates before
 * publishing, so this only guards against foreign writers).
 */
final class DecideProcessor implements FixedKeyProcessor<String, Decoded<TransactionAuthorizationRequested>, DecidedTransaction> {
    private static final Logger LOG = LoggerFactory.getLogger(DecideProcessor.class);

    private final Clock clock;
    private final Deserializer<RuleDefinition> ruleDeserializer;
    private final Deserializer<Alert> alertDeserializer;
    private final Serializer<TransactionDecision> decisionSerializer;
    private final String decisionsTopic;
    private final DecisionTopology.AlertsSeenBy alertsSeen;
    private final Set<String> reportedBadRules = new HashSet<>();
    private FixedKeyProcessorContext<String, DecidedTransaction> context;
    private TimestampedKeyValueStore<String, byte[]> rules;
    private KeyValueStore<String, CardActivity> cards;
    private KeyValueStore<String, CustomerProfile> profiles;
    private KeyValueStore<String, FraudAlertHistory> alerts;
    private List<RawRule> rulesRead;
    private RuleSet ruleSet;

    /**
     * @param decisionsTopic the topic the decisions are written to (its name picks the registry subject the decision is
     *                       encoded under, as the sink's serializer would)
     * @param alertsSeen     how far a decision reads its card's and customer's fraud alerts (live: all held)
     */
    DecideProcessor(Clock clock, Deserializer<RuleDefinition> ruleDeserializer, Deserializer<Alert> alertDeserializer,
                    Serializer<TransactionDecision> decisionSerializer, String decisionsTopic, DecisionTopology.AlertsSeenBy alertsSeen) {
        this.clock = clock;
        this.ruleDeserializer = ruleDeserializer;
        this.alertDeserializer = alertDeserializer;
        this.decisionSerializer = decisionSerializer;
        this.decisionsTopic = decisionsTopic;
        this.alertsSeen = alertsSeen;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, DecidedTransaction> context) {
        this.context = context;
        this.rules = context.getStateStore(DecisionTopology.RULES_STORE);
        this.cards = context.getStateStore(DecisionTopology.CARD_ACTIVITY_STORE);
        this.profiles = context.getStateStore(DecisionTopology.CUSTOMER_PROFILES_GLOBAL);
        this.alerts = context.getStateStore(DecisionTopology.FRAUD_ALERTS_GLOBAL);
    }

    @Override
    public void process(FixedKeyRecord<String, Decoded<TransactionAuthorizationRequested>> record) {
        TransactionAuthorizationRequested request = record.value().value();
        CardActivity before = cards.get(request.getCardToken());
        CardActivity after = CardActivities.record(before == null ? CardActivities.empty(request.getCardToken()) : before, request);
        cards.put(request.getCardToken(), after);
        String customerId = request.getCustomerId();
        AlertsSeen limit = alertsSeen.of(request.getTransactionId());
        FraudAlertHistory cardAlerts = alerts.get(request.getCardToken());
        FraudAlertHistory customerAlerts = customerId == null ? null : alerts.get(customerId);
        long cardUpTo = limit == null ? Long.MAX_VALUE : limit.getCardOffset();
        long customerUpTo = limit == null ? Long.MAX_VALUE : limit.getCustomerOffset();
        Instant at = request.getEnvelope().getOccurredAt();
        Features features = new Features(CardActivities.features(after, request),
                customerId == null ? null : profiles.get(customerId),
                FraudAlerts.applying(decode(FraudAlerts.upTo(cardAlerts, cardUpTo)), at),
                FraudAlerts.applying(decode(FraudAlerts.upTo(customerAlerts, customerUpTo)), at));
        TransactionDecision decision = DecisionTopology.decide(request, features, currentRules(), clock);
        decision.setAlertsSeen(new AlertsSeen(FraudAlerts.newestOffset(cardAlerts, cardUpTo),
                FraudAlerts.newestOffset(customerAlerts, customerUpTo)));
        var meta = context.recordMetadata();
        context.forward(record.withValue(DecidedTransaction.newBuilder()
                .setTransactionId(request.getTransactionId())
                .setRequestFingerprint(ByteBuffer.wrap(Fingerprints.of(request)))
                .setDecision(ByteBuffer.wrap(decisionSerializer.serialize(decisionsTopic, decision)))
                .setRequest(ByteBuffer.wrap(record.value().raw())) // as read: only a conflict's dead letter uses it
                .setRequestPartition(meta.map(m -> m.partition()).orElse(-1))
                .setRequestOffset(meta.map(m -> m.offset()).orElse(-1L))
                .build()));
    }

    /** The alert records held, decoded; an unreadable one is left out (and reported once). */
    private List<Alert> decode(List<HeldAlert> held) {
        List<Alert> decoded = new ArrayList<>(held.size());
        for (HeldAlert h : held) {
            byte[] raw = new byte[h.getAlert().remaining()];
            h.getAlert().duplicate().get(raw);
            try {
                decoded.add(alertDeserializer.deserialize(Topics.FRAUD_ALERTS.name(), raw));
            } catch (RuntimeException e) {
                if (reportedBadRules.add(Topics.FRAUD_ALERTS.name() + "@" + h.getOffset())) {
                    LOG.warn("Ignoring unreadable {} record at offset {}: {}", Topics.FRAUD_ALERTS.name(), h.getOffset(), e.getMessage());
                }
            }
        }
        return decoded;
    }

    /**
     * The rule set in the rules store: rebuilt (decoded and validated) only when an entry of the store changed since the
     * last request, which is rare; otherwise the set built then. The store is still read for every request, so a new
     * rule version is used from the next request on, as before.
     */
    private RuleSet currentRules() {
        List<RawRule> raw = new ArrayList<>(rulesRead == null ? 8 : rulesRead.size());
        try (KeyValueIterator<String, ValueAndTimestamp<byte[]>> it = rules.all()) {
            while (it.hasNext()) {
                var entry = it.next();
                if (entry.value != null && entry.value.value() != null) {
                    raw.add(new RawRule(entry.key, entry.value.value(), entry.value.timestamp()));
                }
            }
        }
        if (ruleSet != null && raw.equals(rulesRead)) {
            return ruleSet;
        }
        List<RuleDefinition> definitions = new ArrayList<>();
        for (RawRule r : raw) {
            try {
                RuleDefinition d = ruleDeserializer.deserialize(Topics.RULES.name(), r.value());
                Rules.validate(d);
                definitions.add(d);
            } catch (RuntimeException e) {
                if (reportedBadRules.add(r.key() + "@" + r.timestamp())) {
                    LOG.warn("Skipping rule '{}' from {}: {}", r.key(), Topics.RULES.name(), e.getMessage());
                }
            }
        }
        rulesRead = raw;
        ruleSet = RuleSet.of(definitions);
        return ruleSet;
    }

    /** One entry of the rules store as read: equal when key, bytes and timestamp are. */
    private record RawRule(String key, byte[] value, long timestamp) {
        @Override
        public boolean equals(Object o) {
            return o instanceof RawRule r && r.key.equals(key) && r.timestamp == timestamp && Arrays.equals(r.value, value);
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + Arrays.hashCode(value);
        }
    }
}
