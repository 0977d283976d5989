package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.ReviewOutcome;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a review outcome means for later decisions. A confirmed fraud becomes a fraud alert on the card: the decision
 * topology reads the latest alert per card as a global table, so the existing {@value FlaggedSubjectRule#KIND} rule
 * blocks the card's next payments within its window, with the review named in the reason. A legitimate outcome
 * changes no decision (it stays on the reviews topic as the record of the verdict).
 * <p>
 * Pure and clock-free: the alert's times are the review's, and its event id is derived from the review's, so a
 * replay of the reviews topic yields the same alerts.
 */
public final class ReviewOutcomes {
    /** The alert's pattern id: tells an alert raised by a reviewer from one found by a detector. */
    public static final String PATTERN_ID = "review-outcome";
    public static final int PATTERN_VERSION = 1;
    static final String SOURCE = "decision-topology:reviews";

    /** The card's fraud alert for a confirmed fraud; empty for a legitimate outcome. */
    public static Optional<Alert> flagOf(ReviewOutcomeRecorded review) {
        if (review.getOutcome() != ReviewOutcome.CONFIRMED_FRAUD) {
            return Optional.empty();
        }
        String reviewId = review.getEnvelope().getEventId();
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("reviewId", reviewId);
        attributes.put("reviewer", review.getReviewer());
        attributes.put("transactionId", review.getTransactionId());
        attributes.put("decisionEventId", review.getDecisionEventId());
        if (review.getCustomerId() != null) {
            attributes.put("customerId", review.getCustomerId());
        }
        if (review.getNote() != null) {
            attributes.put("note", review.getNote());
        }
        return Optional.of(Alert.newBuilder()
                .setEnvelope(Envelopes.create(Envelopes.derivedEventId("review-flag", reviewId), review.getCardToken(),
                        review.getEnvelope().getOccurredAt(), review.getEnvelope().getRecordedAt(), SOURCE,
                        EventTypes.versionOf(Alert.class), reviewId))
                .setAlertId("review-" + reviewId)
                .setType(AlertType.OTHER)
                .setCategory(AlertCategory.FRAUD)
                .setSeverity(Severity.CRITICAL)
                .setSubject(AlertSubject.newBuilder().setKind(SubjectKind.CARD).setId(review.getCardToken()).build())
                .setPatternId(PATTERN_ID)
                .setPatternVersion(PATTERN_VERSION)
                .setSummary("fraud confirmed by " + review.getReviewer() + " reviewing transaction " + review.getTransactionId()
                        + (review.getNote() == null ? "" : " (" + review.getNote() + ")"))
                .setMatchedEventIds(List.of(review.getTransactionId()))
                .setAttributes(attributes)
                .setWindowStart(review.getEnvelope().getOccurredAt())
                .setWindowEnd(review.getEnvelope().getOccurredAt())
                .build());
    }

    private ReviewOutcomes() {
    }
}
