package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.ReviewOutcome;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Given a review outcome, expect the flag (or none) that later decisions see. */
class ReviewOutcomesTest {
    private final FlaggedSubjectRule flagged = new FlaggedSubjectRule("flagged-subject-block", 1, DecisionOutcome.BLOCK,
            Duration.ofDays(1));

    static ReviewOutcomeRecorded review(String eventId, ReviewOutcome outcome) {
        return SampleEvents.reviewOutcome(eventId, "tx-held", Cards.ALICE, outcome, Times.T0.plusSeconds(60));
    }

    @Test
    void aConfirmedFraudFlagsTheCardAndTheNextPaymentIsBlockedNamingTheReview() {
        var alert = ReviewOutcomes.flagOf(review("rev-1", ReviewOutcome.CONFIRMED_FRAUD)).orElseThrow();
        assertThat(alert.getCategory()).isEqualTo(AlertCategory.FRAUD);
        assertThat(alert.getSubject().getId()).isEqualTo(Cards.ALICE);
        assertThat(alert.getEnvelope().getKey()).isEqualTo(Cards.ALICE);
        assertThat(alert.getWindowEnd()).isEqualTo(Times.T0.plusSeconds(60));
        assertThat(alert.getEnvelope().getEventId()).as("derived, so a replay gives the same id")
                .isEqualTo(ReviewOutcomes.flagOf(review("rev-1", ReviewOutcome.CONFIRMED_FRAUD)).orElseThrow().getEnvelope().getEventId());

        TransactionAuthorizationRequested next = SampleEvents.transaction("tx-next", Cards.ALICE, "5", "EUR",
                Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(120));
        var hit = flagged.evaluate(next, new Features(CardFeatures.firstPayment(next.getTransactionId(), next.getAmount().getAmount()), null, alert, null)).orElseThrow();
        assertThat(hit.message()).contains("fraud confirmed by agent-7 reviewing transaction tx-held");
        assertThat(hit.facts()).containsEntry("alertId", "review-rev-1").containsEntry("patternId", ReviewOutcomes.PATTERN_ID)
                .containsEntry("transactions", "tx-held");
    }

    @Test
    void aWithdrawnLatestAlertFlagsNothing() {
        var alert = ReviewOutcomes.flagOf(review("rev-3", ReviewOutcome.CONFIRMED_FRAUD)).orElseThrow();
        var withdrawn = io.streamhouse.domain.event.Alert.newBuilder(alert)
                .setStatus(io.streamhouse.domain.event.AlertStatus.WITHDRAWN).build();
        TransactionAuthorizationRequested next = SampleEvents.transaction("tx-next", Cards.ALICE, "5", "EUR",
                Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(120));
        var card = CardFeatures.firstPayment(next.getTransactionId(), next.getAmount().getAmount());

        assertThat(flagged.evaluate(next, new Features(card, null, withdrawn, withdrawn))).isEmpty();
        assertThat(flagged.evaluate(next, new Features(card, null, null, alert))).as("the same alert in effect").isPresent();
    }

    @Test
    void aLegitimateOutcomeFlagsNothing() {
        assertThat(ReviewOutcomes.flagOf(review("rev-2", ReviewOutcome.LEGITIMATE))).isEmpty();
    }
}
