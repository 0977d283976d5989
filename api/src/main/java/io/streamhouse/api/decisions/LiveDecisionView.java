package io.streamhouse.api.decisions;

import io.streamhouse.domain.event.TransactionDecision;

import java.time.Instant;
import java.util.List;

/**
 * One decision of {@code GET /v1/decisions/stream}: what {@link DecisionView} says, with the card, without each
 * rule's facts (the stream is also for the ops role, which does not read decisions one by one).
 */
public record LiveDecisionView(String transactionId, String cardToken, String outcome, List<Reason> reasons,
                               long ruleSetVersion, Instant requestedAt, Instant decidedAt, long decisionLatencyMillis,
                               String decisionEventId) {

    public record Reason(String ruleId, int ruleVersion, String outcome, String message) {
    }

    public static LiveDecisionView of(TransactionDecision d) {
        return new LiveDecisionView(d.getTransactionId(), d.getCardToken(), d.getOutcome().name(),
                d.getReasons().stream().map(r -> new Reason(r.getRuleId(), r.getRuleVersion(), r.getOutcome().name(),
                        r.getMessage())).toList(),
                d.getRuleSetVersion(), d.getRequestedAt(), d.getEnvelope().getRecordedAt(), d.getDecisionLatencyMillis(),
                d.getEnvelope().getEventId());
    }
}
