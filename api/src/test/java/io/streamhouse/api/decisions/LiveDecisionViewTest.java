package io.streamhouse.api.decisions;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.DecisionReason;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.SampleEvents;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A decision as the live stream shows it: every field the desk needs, no rule facts. */
class LiveDecisionViewTest {
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

    @Test
    void carriesTheCardTheOutcomeEveryFiredRuleAndTheTimes() {
        TransactionDecision d = TransactionDecision.newBuilder()
                .setEnvelope(SampleEvents.envelope("evt-dec-1", "tx-1", T0.plusMillis(7), TransactionDecision.class))
                .setTransactionId("tx-1").setCardToken("tok-1").setCustomerId("C-1").setOutcome(DecisionOutcome.REVIEW)
                .setReasons(List.of(DecisionReason.newBuilder().setRuleId("high-risk-merchant-review").setRuleVersion(2)
                        .setOutcome(DecisionOutcome.REVIEW).setMessage("merchant in a high-risk category")
                        .setFacts(Map.of("mcc", "7995")).build()))
                .setRuleSetVersion(9).setRequestedAt(T0).setDecisionLatencyMillis(7).build();

        LiveDecisionView view = LiveDecisionView.of(d);

        assertThat(view).isEqualTo(new LiveDecisionView("tx-1", "tok-1", "REVIEW",
                List.of(new LiveDecisionView.Reason("high-risk-merchant-review", 2, "REVIEW", "merchant in a high-risk category")),
                9, T0, d.getEnvelope().getRecordedAt(), 7, "evt-dec-1"));
    }
}
