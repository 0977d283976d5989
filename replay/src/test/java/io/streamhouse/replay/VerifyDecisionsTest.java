package io.streamhouse.replay;

import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Live's decisions as verification collects them: the at-least-once decision app may write a transaction's first
 * decision again (identical), which is the same decision; a second, different decision is a divergence.
 */
class VerifyDecisionsTest {
    private final Verify verify = new Verify(null, new RegistryTopicSerdes(new InMemorySchemaRegistryClient()), 10);

    private static TransactionDecision decision(String id, String amount, int latencyMillis) {
        var request = SampleEvents.transaction(id, Cards.ALICE, amount, "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
        return Decisions.toEvent(request, DefaultRules.ruleSet().decide(request,
                Features.of(CardFeatures.firstPayment(id, request.getAmount().getAmount()))), Times.T0.plusMillis(latencyMillis));
    }

    @Test
    void anIdenticalRepeatIsOneDecisionAndADifferentOneDiverges() {
        Map<String, List<TransactionDecision>> live = new HashMap<>(), shadow = new HashMap<>();
        Verify.collect(live, decision("tx-1", "10.00", 5));
        Verify.collect(live, decision("tx-1", "10.00", 5));
        Verify.collect(live, decision("tx-2", "10.00", 5));
        Verify.collect(live, decision("tx-2", "5000.00", 9));
        Verify.collect(shadow, decision("tx-1", "10.00", 40));
        Verify.collect(shadow, decision("tx-2", "10.00", 40));

        assertThat(live.get("tx-1")).as("repeated, the same decision").hasSize(1);
        var report = verify.compareDecisions(Set.of("tx-1", "tx-2"), live, shadow);
        assertThat(report.divergent()).as("only the transaction with two different decisions").isEqualTo(1);
        assertThat(report.differences()).singleElement().satisfies(d -> assertThat(d.toString()).contains("tx-2"));
    }
}
