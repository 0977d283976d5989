package io.streamhouse.ingest.authorize;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionDecision;

import java.util.List;
import java.util.Map;

/**
 * The answer of {@code POST /v1/transactions/authorize}. {@code final} is true when it is the decision the
 * decision topology made; false for the fallback given when the deadline passed first (the real decision is still
 * made and recorded on the decisions topic, and {@code GET /v1/transactions/{id}/decision} on the api serves it).
 */
public record AuthorizeAnswer(String transactionId, String outcome, boolean decided, List<Reason> reasons,
                              Long ruleSetVersion, long waitedMillis, String eventId) {

    public record Reason(String ruleId, int ruleVersion, String outcome, String message, Map<String, String> facts) {
    }

    /** What a payment gets when its decision is not there in time: held for review, never silently allowed. */
    public static final DecisionOutcome FALLBACK = DecisionOutcome.REVIEW;

    static AuthorizeAnswer of(TransactionDecision d, long waitedMillis, String eventId) {
        return new AuthorizeAnswer(d.getTransactionId(), d.getOutcome().name(), true,
                d.getReasons().stream().map(r -> new Reason(r.getRuleId(), r.getRuleVersion(), r.getOutcome().name(),
                        r.getMessage(), Map.copyOf(r.getFacts()))).toList(),
                d.getRuleSetVersion(), waitedMillis, eventId);
    }

    static AuthorizeAnswer fallback(String transactionId, long deadlineMillis, long waitedMillis, String eventId) {
        return new AuthorizeAnswer(transactionId, FALLBACK.name(), false,
                List.of(new Reason("timeout", 1, FALLBACK.name(),
                        "no decision within " + deadlineMillis + " ms; the request is recorded and will be decided",
                        Map.of("deadlineMs", Long.toString(deadlineMillis)))),
                null, waitedMillis, eventId);
    }
}
