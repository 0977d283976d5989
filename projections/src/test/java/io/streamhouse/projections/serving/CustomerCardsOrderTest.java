package io.streamhouse.projections.serving;

import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A customer's decisions reach the customer-state fold through a repartition from several partitions, in an order
 * that differs from run to run (a rebuild of a million generated events found 20 customers whose card lists differed
 * from live only in order). The fold's result must not depend on that order: the kept cards and their order follow
 * from the decisions' event times alone, past the cap of ten cards too.
 */
class CustomerCardsOrderTest {

    @Test
    void cardsDoNotDependOnTheOrderDecisionsArriveIn() {
        List<TransactionDecision> decisions = new ArrayList<>();
        // 14 cards over 30 decisions: more cards than the cap, several decisions per card, older cards seen again later.
        for (int i = 0; i < 30; i++) {
            String card = "tok_card_" + String.format("%02d", (i * 5) % 14);
            var tx = SampleEvents.transaction("tx-" + i, card, "12.50", "EUR", Merchants.GROCER_ROTTERDAM,
                    Times.T0.plus(Times.ONE_MINUTE.multipliedBy((i * 11) % 30)));
            TransactionDecision d = Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                    Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))), tx.getEnvelope().getOccurredAt());
            decisions.add(TransactionDecision.newBuilder(d).setCustomerId("c-1").build());
        }
        CustomerState inOrder = fold(decisions);
        assertThat(inOrder.getCardTokens()).hasSize(10);
        Random random = new Random(42);
        for (int round = 0; round < 20; round++) {
            List<TransactionDecision> shuffled = new ArrayList<>(decisions);
            Collections.shuffle(shuffled, random);
            CustomerState other = fold(shuffled);
            assertThat(other.getCardTokens()).as("cards, arrival order %d", round).containsExactlyElementsOf(inOrder.getCardTokens());
            assertThat(other.getCardLastSeenAt()).as("last seen, arrival order %d", round).isEqualTo(inOrder.getCardLastSeenAt());
            assertThat(other.getDecisions()).as("decisions, arrival order %d", round).isEqualTo(inOrder.getDecisions());
        }
    }

    private static CustomerState fold(List<TransactionDecision> decisions) {
        CustomerState state = null;
        for (TransactionDecision d : decisions) {
            state = Folds.customer(state, "c-1", d);
        }
        return state;
    }
}
