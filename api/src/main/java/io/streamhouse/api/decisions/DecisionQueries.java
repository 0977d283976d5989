package io.streamhouse.api.decisions;

import io.streamhouse.api.rules.RuleBook;
import io.streamhouse.domain.event.DecisionReason;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.projections.DecisionLookupProjection;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Decisions and their explanations, read from the local store of the decisions projection: one place for the HTTP
 * resources and the MCP tools. Lookups throw {@link InvalidStateStoreException} while the store is not queryable
 * (starting, restoring, rebalancing); callers say so to their client rather than answer "unknown".
 */
@ApplicationScoped
public class DecisionQueries {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
    public static final String ID_RULE = "id must be 1-64 letters, digits or . _ : -";

    private final KafkaStreams streams;
    private final RuleBook rules;

    public DecisionQueries(KafkaStreams streams, RuleBook rules) {
        this.streams = streams;
        this.rules = rules;
    }

    public record RuleNow(String kind, int currentVersion, boolean decidedWithCurrentVersion, boolean enabled,
                          Map<String, String> parameters, String description) {
    }

    public record Reason(String ruleId, int ruleVersion, String outcome, String message, Map<String, String> facts,
                         List<String> contributingTransactions, RuleNow ruleNow) {
    }

    /**
     * @param alertsRead how far the decider had read the fraud alerts about the card and the customer when it decided
     *                   (null for a decision written before that was recorded): an alert at a later offset was not
     *                   there yet for this payment, which is why a payment just before a card-testing alert is allowed
     */
    public record Explanation(String transactionId, String outcome, String summary, long ruleSetVersion,
                              String requestEventId, String decisionEventId, List<Reason> reasons, AlertsRead alertsRead) {
    }

    /**
     * Offsets on {@code topic} ({@code alerts.fraud}) of the newest record about the card and about the customer the
     * decider had read; -1 when it had read none (or the payment names no customer).
     */
    public record AlertsRead(String topic, long cardOffset, long customerOffset) {
        static AlertsRead of(TransactionDecision decision) {
            var seen = decision.getAlertsSeen();
            return seen == null ? null
                    : new AlertsRead(io.streamhouse.domain.topic.Topics.FRAUD_ALERTS.name(), seen.getCardOffset(), seen.getCustomerOffset());
        }
    }

    public static boolean isValidId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** The state of the api's Kafka Streams, for "not queryable yet" answers. */
    public KafkaStreams.State streamsState() {
        return streams.state();
    }

    /** The decision recorded for a transaction, if any. */
    public Optional<TransactionDecision> decision(String transactionId) {
        return Optional.ofNullable(streams.store(StoreQueryParameters.fromNameAndType(DecisionLookupProjection.STORE,
                QueryableStoreTypes.<String, TransactionDecision>keyValueStore())).get(transactionId));
    }

    /**
     * Why a payment got its outcome: every rule that fired with its version and the values that triggered it, the
     * rule as defined now (and whether that is still the version that decided), and the contributing events.
     */
    public Optional<Explanation> explain(String transactionId) {
        Optional<TransactionDecision> found = decision(transactionId);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        TransactionDecision decision = found.get();
        Map<String, RuleDefinition> now = rules.current();
        List<Reason> reasons = new ArrayList<>();
        for (DecisionReason r : decision.getReasons()) {
            RuleDefinition current = now.get(r.getRuleId());
            RuleNow ruleNow = current == null ? null : new RuleNow(current.getKind(), current.getVersion(),
                    current.getVersion() == r.getRuleVersion(), current.getEnabled(),
                    new LinkedHashMap<>(current.getParameters()), current.getDescription());
            String listed = r.getFacts().get("transactions");
            List<String> contributing = listed == null || listed.isEmpty() ? List.of(transactionId) : Arrays.asList(listed.split(","));
            reasons.add(new Reason(r.getRuleId(), r.getRuleVersion(), r.getOutcome().name(), r.getMessage(),
                    new LinkedHashMap<>(r.getFacts()), contributing, ruleNow));
        }
        return Optional.of(new Explanation(transactionId, decision.getOutcome().name(), summary(decision),
                decision.getRuleSetVersion(), decision.getEnvelope().getCorrelationId(), decision.getEnvelope().getEventId(),
                reasons, AlertsRead.of(decision)));
    }

    static String summary(TransactionDecision d) {
        String verb = switch (d.getOutcome()) {
            case ALLOW -> "Allowed";
            case REVIEW -> "Held for review";
            case BLOCK -> "Blocked";
        };
        if (d.getReasons().isEmpty()) {
            return verb + ": no rule fired (rule set version " + d.getRuleSetVersion() + ").";
        }
        return verb + " because " + d.getReasons().stream()
                .map(r -> r.getRuleId() + " v" + r.getRuleVersion() + " (" + r.getOutcome() + "): " + r.getMessage())
                .collect(Collectors.joining("; ")) + ".";
    }
}
