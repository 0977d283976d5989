package io.streamhouse.api.decisions;

import io.streamhouse.domain.event.TransactionDecision;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The JSON answer for one decision: outcome, every reason, the rule-set version used, and the card's token (never its
 * number), which names the card's recent activity ({@code GET /v1/cards/{cardToken}/activity}).
 */
public record DecisionView(String transactionId, String cardToken, String outcome, List<Reason> reasons, long ruleSetVersion,
                           Instant requestedAt, Instant decidedAt, long decisionLatencyMillis, String decisionEventId) {

    public record Reason(String ruleId, int ruleVersion, String outcome, String message, Map<String, String> facts) {
    }

    public static DecisionView of(TransactionDecision d) {
        return new DecisionView(d.getTransactionId(), d.getCardToken(), d.getOutcome().name(),
                d.getReasons().stream().map(r -> new Reason(r.getRuleId(), r.getRuleVersion(), r.getOutcome().name(),
                        r.getMessage(), Map.copyOf(r.getFacts()))).toList(),
                d.getRuleSetVersion(), d.getRequestedAt(), d.getEnvelope().getRecordedAt(), d.getDecisionLatencyMillis(),
                d.getEnvelope().getEventId());
    }
}
