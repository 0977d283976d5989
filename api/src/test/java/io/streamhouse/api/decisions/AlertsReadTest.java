package io.streamhouse.api.decisions;

import io.streamhouse.domain.event.AlertsSeen;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.SampleEvents;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What an explanation says of the fraud alerts a decision had read. */
class AlertsReadTest {
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

    @Test
    void anExplanationNamesHowFarTheDeciderHadReadTheCardsAndTheCustomersAlerts() {
        var read = DecisionQueries.AlertsRead.of(decision(AlertsSeen.newBuilder().setCardOffset(41).setCustomerOffset(-1).build()));

        assertThat(read).isEqualTo(new DecisionQueries.AlertsRead("alerts.fraud", 41, -1));
    }

    @Test
    void aDecisionWrittenBeforeItWasRecordedSaysNothingRatherThanNone() {
        assertThat(DecisionQueries.AlertsRead.of(decision(null))).isNull();
    }

    private static TransactionDecision decision(AlertsSeen seen) {
        return TransactionDecision.newBuilder()
                .setEnvelope(SampleEvents.envelope("evt-tx-1", "tx-1", T0, TransactionDecision.class))
                .setTransactionId("tx-1").setCardToken("tok-1").setCustomerId(null).setOutcome(DecisionOutcome.ALLOW)
                .setReasons(List.of()).setRuleSetVersion(1).setRequestedAt(T0).setDecisionLatencyMillis(3)
                .setAlertsSeen(seen).build();
    }
}
