package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionReason;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;

import java.time.Duration;
import java.time.Instant;

/** Turns a {@link Decision} into the event that goes on the decisions topic. */
public final class Decisions {
    public static final String SOURCE = "decision-topology";
    /**
     * Header on every record of the decisions topic: the hex SHA-256 fingerprint ({@code Fingerprints}) of the request
     * the decision was made for. A caller waiting under the same transaction id with another fingerprint sent a
     * different request under an id already decided.
     */
    public static final String REQUEST_FINGERPRINT_HEADER = "streamhouse.request.fingerprint";
    /**
     * Header an authorize request may carry: the partition of {@code payments.transactions.decisions.replies} (decimal,
     * ASCII) that the ingest instance waiting for the answer reads. The decision topology then also writes the decision
     * there, byte for byte as on the decisions topic; the decisions topic's records never carry it.
     */
    public static final String REPLY_PARTITION_HEADER = "streamhouse.reply.partition";

    /**
     * @param decidedAt when the decider emitted it (its wall clock, passed in from the edge); only the latency
     *                  field depends on it, the decision and its event id do not
     */
    public static TransactionDecision toEvent(TransactionAuthorizationRequested request, Decision decision, Instant decidedAt) {
        var envelope = request.getEnvelope();
        var reasons = decision.reasons().stream()
                .map(h -> DecisionReason.newBuilder()
                        .setRuleId(h.ruleId())
                        .setRuleVersion(h.ruleVersion())
                        .setOutcome(h.outcome())
                        .setMessage(h.message())
                        .setFacts(h.facts())
                        .build())
                .toList();
        long latency = Math.max(0, Duration.between(envelope.getRecordedAt(), decidedAt).toMillis());
        return TransactionDecision.newBuilder()
                .setEnvelope(Envelopes.create(
                        Envelopes.derivedEventId("decision", envelope.getEventId()),
                        request.getTransactionId(),
                        envelope.getOccurredAt(),
                        decidedAt,
                        SOURCE,
                        EventTypes.versionOf(TransactionDecision.class),
                        envelope.getEventId()))
                .setTransactionId(request.getTransactionId())
                .setCardToken(request.getCardToken())
                .setCustomerId(request.getCustomerId())
                .setSubmittedBy(request.getSubmittedBy())
                .setOutcome(decision.outcome())
                .setReasons(reasons)
                .setRuleSetVersion(decision.ruleSetVersion())
                .setRequestedAt(envelope.getOccurredAt())
                .setDecisionLatencyMillis(latency)
                .build();
    }

    private Decisions() {
    }
}
