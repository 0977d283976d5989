package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Given rule definitions, when a payment arrives, expect a decision with its reasons. */
class RuleSetTest {

    private static TransactionAuthorizationRequested payment(String amount, String currency, io.streamhouse.domain.event.Merchant m) {
        return SampleEvents.transaction("tx-" + amount, Cards.ALICE, amount, currency, m, Times.T0);
    }

    /** A decision for a card's first payment: no history besides the payment itself. */
    private static Decision alone(RuleSet rules, TransactionAuthorizationRequested tx) {
        return rules.decide(tx, Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount())));
    }

    @Test
    void smallGroceryPaymentIsAllowedWithoutReasons() {
        Decision d = alone(DefaultRules.ruleSet(), payment("12.50", "EUR", Merchants.GROCER_ROTTERDAM));
        assertThat(d).isInstanceOf(Decision.Allow.class);
        assertThat(d.reasons()).isEmpty();
        assertThat(d.ruleSetVersion()).isEqualTo(10);
    }

    @Test
    void thresholdIsInclusive() {
        assertThat(alone(DefaultRules.ruleSet(), payment("999.99", "EUR", Merchants.JEWELLER_ANTWERP)).outcome())
                .isEqualTo(DecisionOutcome.ALLOW);
        Decision d = alone(DefaultRules.ruleSet(), payment("1000.00", "EUR", Merchants.JEWELLER_ANTWERP));
        assertThat(d).isInstanceOf(Decision.Review.class);
        assertThat(d.reasons()).singleElement().satisfies(r -> {
            assertThat(r.ruleId()).isEqualTo("large-amount-review");
            assertThat(r.ruleVersion()).isEqualTo(1);
            assertThat(r.facts()).containsEntry("amount", "1000.0000").containsEntry("threshold", "1000.00");
        });
    }

    @Test
    void strictestOutcomeWinsAndEveryReasonIsKept() {
        Decision d = alone(DefaultRules.ruleSet(), payment("25000", "EUR", Merchants.CASINO_MALTA));
        assertThat(d).isInstanceOf(Decision.Block.class);
        assertThat(d.reasons()).extracting(RuleHit::ruleId)
                .containsExactly("very-large-amount-block", "card-spend-24h-review", "high-risk-merchant-review",
                        "large-amount-review");
    }

    @Test
    void otherCurrenciesAreNotConvertedSoTheEuroRuleDoesNotFire() {
        assertThat(alone(DefaultRules.ruleSet(), payment("50000", "USD", Merchants.GROCER_ROTTERDAM)).outcome())
                .isEqualTo(DecisionOutcome.ALLOW);
    }

    @Test
    void newerVersionOfARuleReplacesTheOlderAndRaisesTheSetVersion() {
        List<RuleDefinition> defs = new ArrayList<>(DefaultRules.definitions());
        RuleDefinition v2 = RuleDefinition.newBuilder(defs.get(0)).setVersion(2)
                .setParameters(new HashMap<>(java.util.Map.of("threshold", "500", "currency", "EUR"))).build();
        defs.add(v2);
        RuleSet set = RuleSet.of(defs);
        assertThat(set.version()).isEqualTo(11);
        Decision d = alone(set, payment("600", "EUR", Merchants.GROCER_ROTTERDAM));
        assertThat(d.reasons()).singleElement().satisfies(r -> assertThat(r.ruleVersion()).isEqualTo(2));
    }

    @Test
    void disabledRuleDoesNotFireButStillCountsInTheVersion() {
        List<RuleDefinition> defs = new ArrayList<>(DefaultRules.definitions());
        defs.add(RuleDefinition.newBuilder(defs.get(2)).setVersion(2).setEnabled(false).build());
        RuleSet set = RuleSet.of(defs);
        assertThat(set.version()).isEqualTo(11);
        assertThat(alone(set, payment("5", "EUR", Merchants.CASINO_MALTA)).outcome()).isEqualTo(DecisionOutcome.ALLOW);
    }

    @Test
    void badDefinitionsAreRefusedNamingTheField() {
        RuleDefinition base = DefaultRules.definitions().get(0);
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(base)
                .setParameters(java.util.Map.of("threshold", "-1", "currency", "EUR")).build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("parameters.threshold"));
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(base)
                .setParameters(java.util.Map.of("threshold", "10")).build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("parameters.currency"));
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(base).setKind("velocity-magic").build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("kind"));
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(base).setVersion(0).build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("version"));
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(DefaultRules.definitions().get(2))
                .setParameters(java.util.Map.of("mccs", "7995,79x5")).build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("parameters.mccs"));
        RuleDefinition velocity = DefaultRules.definitions().get(3);
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(velocity)
                .setParameters(java.util.Map.of("window", "5m", "maxCount", "5")).build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("parameters.window"));
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(velocity)
                .setParameters(java.util.Map.of("window", "1m", "maxCount", "many")).build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("parameters.maxCount"));
        RuleDefinition profileChange = DefaultRules.definitions().get(7);
        assertThatThrownBy(() -> Rules.validate(RuleDefinition.newBuilder(profileChange)
                .setParameters(java.util.Map.of("within", "an hour", "threshold", "250", "currency", "EUR")).build()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("parameters.within"));
    }

    @Test
    void decisionEventIsDeterministicExceptForLatency() {
        var tx = payment("1500", "EUR", Merchants.GROCER_ROTTERDAM);
        var first = Decisions.toEvent(tx, alone(DefaultRules.ruleSet(), tx), Times.T0.plusMillis(40));
        var replayed = Decisions.toEvent(tx, alone(DefaultRules.ruleSet(), tx), Times.T0.plusSeconds(3600));
        assertThat(replayed.getEnvelope().getEventId()).isEqualTo(first.getEnvelope().getEventId());
        assertThat(replayed.getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(replayed.getReasons()).isEqualTo(first.getReasons());
        assertThat(first.getDecisionLatencyMillis()).isEqualTo(35);
        assertThat(first.getEnvelope().getCorrelationId()).isEqualTo(tx.getEnvelope().getEventId());
    }
}
