package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.Merchant;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

import static io.streamhouse.domain.decision.FeatureWindow.ONE_DAY;
import static io.streamhouse.domain.decision.FeatureWindow.ONE_HOUR;
import static io.streamhouse.domain.decision.FeatureWindow.ONE_MINUTE;
import static org.assertj.core.api.Assertions.assertThat;

/** Given a card's earlier payments, when one more arrives, expect these features and decisions. */
class CardActivitiesTest {
    private CardActivity activity = CardActivities.empty(Cards.ALICE);
    private int seq;

    private CardFeatures pay(String amount, Merchant merchant, Instant at) {
        TransactionAuthorizationRequested tx = SampleEvents.transaction("tx-" + (++seq), Cards.ALICE, amount, "EUR", merchant, at);
        activity = CardActivities.record(activity, tx);
        return CardActivities.features(activity, tx);
    }

    @Test
    void windowsAreByEventTimeAndIncludeThePaymentItself() {
        pay("10", Merchants.GROCER_ROTTERDAM, Times.T0);
        pay("20", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(30));
        CardFeatures f = pay("30", Merchants.JEWELLER_ANTWERP, Times.T0.plusSeconds(59));
        assertThat(f.count()).containsEntry(ONE_MINUTE, 3).containsEntry(ONE_HOUR, 3).containsEntry(ONE_DAY, 3);
        assertThat(f.spend().get(ONE_MINUTE)).isEqualByComparingTo("60");
        assertThat(f.distinctMerchants().get(ONE_MINUTE)).isEqualTo(2);
        assertThat(f.distinctCountries().get(ONE_MINUTE)).isEqualTo(2);
    }

    @Test
    void aPaymentExactlyOneWindowOldNoLongerCounts() {
        pay("10", Merchants.GROCER_ROTTERDAM, Times.T0);
        CardFeatures exactlyAMinuteLater = pay("10", Merchants.GROCER_ROTTERDAM, Times.T0.plus(Duration.ofMinutes(1)));
        assertThat(exactlyAMinuteLater.count().get(ONE_MINUTE)).isEqualTo(1);
        assertThat(exactlyAMinuteLater.count().get(ONE_HOUR)).isEqualTo(2);
    }

    @Test
    void anOutOfOrderPaymentCountsOnlyForWhatHappenedAfterIt() {
        pay("10", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(50));
        CardFeatures late = pay("10", Merchants.GROCER_ROTTERDAM, Times.T0);
        assertThat(late.count().get(ONE_MINUTE)).as("the later payment had not happened yet at T0").isEqualTo(1);
        CardFeatures next = pay("10", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(55));
        assertThat(next.count().get(ONE_MINUTE)).as("the late one now counts for later payments").isEqualTo(3);
    }

    @Test
    void aRetriedTransactionIsRecordedOnce() {
        var tx = SampleEvents.transaction("tx-same", Cards.ALICE, "10", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
        activity = CardActivities.record(CardActivities.record(activity, tx), tx);
        assertThat(activity.getEntries()).hasSize(1);
    }

    @Test
    void historyOlderThanADayIsDropped() {
        pay("10", Merchants.GROCER_ROTTERDAM, Times.T0);
        pay("10", Merchants.GROCER_ROTTERDAM, Times.T0.plus(Duration.ofHours(23)));
        pay("10", Merchants.GROCER_ROTTERDAM, Times.T0.plus(Duration.ofHours(25)));
        assertThat(activity.getEntries()).hasSize(2);
    }

    @Test
    void otherCurrenciesCountButDoNotAddToTheSpend() {
        pay("4000", Merchants.GROCER_ROTTERDAM, Times.T0);
        var usd = SampleEvents.transaction("tx-usd", Cards.ALICE, "9000", "USD", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(1));
        activity = CardActivities.record(activity, usd);
        CardFeatures f = pay("1500", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(2));
        assertThat(f.count().get(ONE_MINUTE)).isEqualTo(3);
        assertThat(f.spend().get(ONE_DAY)).isEqualByComparingTo(new BigDecimal("5500"));
    }

    @Test
    void theDefaultRulesSeeTheCardsHistory() {
        RuleSet rules = DefaultRules.ruleSet();
        for (int i = 0; i < 4; i++) {
            pay("5", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(i * 10L));
        }
        var fifth = SampleEvents.transaction("tx-fifth", Cards.ALICE, "5", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(45));
        activity = CardActivities.record(activity, fifth);
        Decision d = rules.decide(fifth, Features.of(CardActivities.features(activity, fifth)));
        assertThat(d.outcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(d.reasons()).extracting(RuleHit::ruleId).containsExactly("card-velocity-1m-review");
        assertThat(d.reasons().get(0).facts()).containsEntry("count", "5")
                .containsEntry("transactions", "tx-1,tx-2,tx-3,tx-4,tx-fifth");
    }

    private CardFeatures payInPerson(String id, Merchant merchant, Instant at) {
        var tx = TransactionAuthorizationRequested.newBuilder(
                SampleEvents.transaction(id, Cards.ALICE, "5", "EUR", merchant, at)).setChannel(Channel.CARD_PRESENT).build();
        activity = CardActivities.record(activity, tx);
        return CardActivities.features(activity, tx);
    }

    @Test
    void onlineMerchantsInThreeCountriesSayNothingAboutWhereTheCardIs() {
        pay("5", Merchants.GROCER_ROTTERDAM, Times.T0);
        pay("5", Merchants.JEWELLER_ANTWERP, Times.T0.plus(Duration.ofMinutes(20)));
        var malta = SampleEvents.transaction("tx-mt-online", Cards.ALICE, "5", "EUR", Merchants.CASINO_MALTA, Times.T0.plus(Duration.ofMinutes(40)));
        activity = CardActivities.record(activity, malta);
        CardFeatures f = CardActivities.features(activity, malta);
        assertThat(f.distinctCountries().get(ONE_HOUR)).isEqualTo(3);
        assertThat(f.distinctPresentCountries().get(ONE_HOUR)).isZero();
        assertThat(DefaultRules.ruleSet().decide(malta, Features.of(f)).reasons()).extracting(RuleHit::ruleId)
                .doesNotContain("card-countries-1h-block");
    }

    @Test
    void threeCountriesInPersonWithinAnHourBlock() {
        payInPerson("tx-nl", Merchants.GROCER_ROTTERDAM, Times.T0);
        payInPerson("tx-be", Merchants.JEWELLER_ANTWERP, Times.T0.plus(Duration.ofMinutes(20)));
        var malta = TransactionAuthorizationRequested.newBuilder(SampleEvents.transaction("tx-mt", Cards.ALICE, "5", "EUR",
                Merchants.CASINO_MALTA, Times.T0.plus(Duration.ofMinutes(40)))).setChannel(Channel.CARD_PRESENT).build();
        activity = CardActivities.record(activity, malta);
        Decision d = DefaultRules.ruleSet().decide(malta, Features.of(CardActivities.features(activity, malta)));
        assertThat(d.outcome()).isEqualTo(DecisionOutcome.BLOCK);
        assertThat(d.reasons()).extracting(RuleHit::ruleId).contains("card-countries-1h-block", "high-risk-merchant-review");
    }
}
