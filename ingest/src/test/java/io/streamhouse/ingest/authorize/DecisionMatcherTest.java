package io.streamhouse.ingest.authorize;

import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiter's matching without Kafka: given decisions arriving as (key, raw value) and requests awaiting
 * transaction ids, expect each request to get its own decision, and decoding to happen only for awaited ones.
 */
class DecisionMatcherTest {

    /** Raw values are stand-ins ("raw:" + id); the decoder counts what it decodes. */
    private final Map<String, TransactionDecision> onTheTopic = new HashMap<>();
    private final AtomicInteger decoded = new AtomicInteger();
    private final DecisionMatcher matcher = new DecisionMatcher(3, raw -> {
        decoded.incrementAndGet();
        TransactionDecision d = onTheTopic.get(new String(raw, StandardCharsets.UTF_8));
        if (d == null) {
            throw new IllegalArgumentException("unreadable");
        }
        return d;
    });

    private byte[] decided(String transactionId, String amount) {
        var request = SampleEvents.transaction(transactionId, Cards.ALICE, amount, "EUR", Merchants.GROCER_ROTTERDAM, T0);
        var decision = Decisions.toEvent(request, DefaultRules.ruleSet().decide(request,
                Features.of(CardFeatures.firstPayment(transactionId, request.getAmount().getAmount()))), T0);
        onTheTopic.put("raw:" + transactionId, decision);
        return ("raw:" + transactionId).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void decisionsNobodyWaitsForAreRememberedButNotDecoded() {
        boolean handed = matcher.arrived("tx-other-1", decided("tx-other-1", "12.00"), null);
        matcher.arrived("tx-other-2", decided("tx-other-2", "13.00"), null);

        assertThat(handed).isFalse();
        assertThat(decoded).hasValue(0);
    }

    @Test
    void aWaitingRequestGetsItsOwnDecisionDecodedOnce() {
        var mine = matcher.await("tx-1");
        matcher.arrived("tx-0", decided("tx-0", "12.00"), null);
        assertThat(mine).isNotDone();

        boolean handed = matcher.arrived("tx-1", decided("tx-1", "1500.00"), null);

        assertThat(handed).isTrue();
        assertThat(mine).isCompleted();
        assertThat(mine.join().decision().getTransactionId()).isEqualTo("tx-1");
        assertThat(mine.join().decision().getOutcome().name()).isEqualTo("REVIEW");
        assertThat(decoded).hasValue(1);
        assertThat(matcher.waitingCount()).isZero();
    }

    @Test
    void aRetryFindsTheDecisionThatAlreadyWentBy() {
        matcher.arrived("tx-2", decided("tx-2", "12.00"), null);

        var retry = matcher.await("tx-2");

        assertThat(retry).isCompleted();
        assertThat(retry.join().decision().getTransactionId()).isEqualTo("tx-2");
        assertThat(matcher.waitingCount()).isZero();
    }

    @Test
    void onlyTheMostRecentDecisionsAreRemembered() {
        matcher.arrived("tx-a", decided("tx-a", "1.00"), null);
        matcher.arrived("tx-b", decided("tx-b", "2.00"), null);
        matcher.arrived("tx-c", decided("tx-c", "3.00"), null);
        matcher.arrived("tx-d", decided("tx-d", "4.00"), null);

        assertThat(matcher.await("tx-a")).isNotDone();
        assertThat(matcher.await("tx-d")).isCompleted();
    }

    @Test
    void anUnreadableDecisionLeavesTheRequestWaitingForItsDeadline() {
        var mine = matcher.await("tx-3");

        boolean handed = matcher.arrived("tx-3", "garbage".getBytes(StandardCharsets.UTF_8), null);

        assertThat(handed).isFalse();
        assertThat(mine).isNotDone();
    }

    @Test
    void aDecisionWhoseKeyNamesAnotherTransactionIsNotHandedOut() {
        var mine = matcher.await("tx-4");

        boolean handed = matcher.arrived("tx-4", decided("tx-5", "12.00"), null);

        assertThat(handed).isFalse();
        assertThat(mine).isNotDone();
    }

    @Test
    void aForgottenWaiterIsNoLongerLookedFor() {
        var mine = matcher.await("tx-6");
        matcher.forget("tx-6", mine);

        matcher.arrived("tx-6", decided("tx-6", "12.00"), null);

        assertThat(mine).isNotDone();
        assertThat(decoded).hasValue(0);
    }

    @Test
    void aDecisionComesWithTheFingerprintOfTheRequestItWasMadeFor() {
        var mine = matcher.await("tx-7");
        matcher.arrived("tx-7", decided("tx-7", "12.00"), "abc1");

        assertThat(mine.join().requestFingerprint()).isEqualTo("abc1");
        assertThat(mine.join().isFor("abc1")).isTrue();
        assertThat(mine.join().isFor("abc2")).as("made for another request").isFalse();
        assertThat(matcher.await("tx-7").join().requestFingerprint()).as("remembered with it").isEqualTo("abc1");
        assertThat(new DecisionMatcher.Match(mine.join().decision(), null).isFor("abc2"))
                .as("a decision written before decisions carried the fingerprint").isTrue();
    }
}
