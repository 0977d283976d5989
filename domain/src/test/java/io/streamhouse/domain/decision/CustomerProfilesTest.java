package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Given a customer's change events, expect the profile the rules see. */
class CustomerProfilesTest {

    private static CustomerEvent event(String id, Instant at, Object change) {
        return CustomerEvent.newBuilder().setEnvelope(SampleEvents.envelope(id, "c-1", at, CustomerEvent.class))
                .setCustomerId("c-1").setChange(change).build();
    }

    private static final Object ADDRESS = CustomerAddressChanged.newBuilder().setPrevious(null)
            .setCurrent(SampleEvents.address("Coolsingel 40", "Rotterdam")).build();

    @Test
    void foldsRegistrationAndChanges() {
        CustomerProfile p = CustomerProfiles.apply(null, event("e1", Times.T0, CustomerRegistered.newBuilder()
                .setEmail("a@example.org").setFullName("A").setAddress(null).setRegisteredAt(Times.T0).build()));
        p = CustomerProfiles.apply(p, event("e2", Times.T0.plus(Times.ONE_HOUR), ADDRESS));
        p = CustomerProfiles.apply(p, event("e3", Times.T0.plus(Times.ONE_HOUR.multipliedBy(2)),
                CustomerEmailChanged.newBuilder().setPrevious("a@example.org").setCurrent("b@example.org").build()));
        assertThat(p.getRegisteredAt()).isEqualTo(Times.T0);
        assertThat(p.getAddressChangedAt()).isEqualTo(Times.T0.plus(Times.ONE_HOUR));
        assertThat(p.getEmailChangedAt()).isEqualTo(Times.T0.plus(Times.ONE_HOUR.multipliedBy(2)));
        assertThat(p.getDeleted()).isFalse();
        assertThat(CustomerProfiles.apply(p, event("e4", Times.T0.plus(Times.ONE_HOUR.multipliedBy(3)),
                CustomerDeleted.newBuilder().setReason(null).build())).getDeleted()).isTrue();
    }

    @Test
    void anOlderChangeArrivingLateDoesNotMoveTheLatestBackAndAReplayedEventChangesNothing() {
        CustomerProfile p = CustomerProfiles.apply(null, event("e2", Times.T0.plus(Times.ONE_HOUR), ADDRESS));
        CustomerProfile late = CustomerProfiles.apply(p, event("e1", Times.T0, ADDRESS));
        assertThat(late.getAddressChangedAt()).isEqualTo(Times.T0.plus(Times.ONE_HOUR));
        CustomerProfile again = CustomerProfiles.apply(late, event("e1", Times.T0, ADDRESS));
        assertThat(again).isSameAs(late);
    }

    /** The change times are a set: any arrival order gives the same profile, the newest 16 by event time kept. */
    @Test
    void theAddressChangesAreTheSameWhateverOrderTheyArriveIn() {
        List<CustomerEvent> changes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            changes.add(event("a" + i, Times.T0.plus(Duration.ofMinutes(7L * i)), ADDRESS));
        }
        CustomerProfile inOrder = fold(changes);
        List<Instant> expected = changes.subList(4, 20).stream().map(e -> e.getEnvelope().getOccurredAt()).toList();
        assertThat(inOrder.getAddressChanges()).containsExactlyElementsOf(expected);
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            List<CustomerEvent> shuffled = new ArrayList<>(changes);
            Collections.shuffle(shuffled, random);
            assertThat(fold(shuffled).getAddressChanges()).as("arrival order %s", shuffled).containsExactlyElementsOf(expected);
        }
    }

    /**
     * A payment at T0 + 30 min, the address changed at T0 and again at T0 + 2 h (logged before the payment was
     * decided, as in a rebuild or for a payment that arrived late): the change that counts is the one at T0, within
     * the hour before the payment, not the latest known.
     */
    @Test
    void aChangeDatedAfterThePaymentDoesNotHideOneDatedBeforeIt() {
        CustomerProfile p = fold(List.of(event("a1", Times.T0, ADDRESS), event("a2", Times.T0.plus(Duration.ofHours(2)), ADDRESS)));
        Instant paidAt = Times.T0.plus(Duration.ofMinutes(30));

        assertThat(CustomerProfiles.addressChangedAtOrBefore(p, paidAt)).isEqualTo(Times.T0);
        assertThat(CustomerProfiles.addressChangedAtOrBefore(p, Times.T0.minusMillis(1))).isNull();
        assertThat(CustomerProfiles.emailChangedAtOrBefore(p, paidAt)).isNull();

        TransactionAuthorizationRequested payment = SampleEvents.transaction("tx-ato", Cards.ALICE, "300", "EUR",
                Merchants.JEWELLER_ANTWERP, paidAt);
        payment.setCustomerId("c-1");
        Decision d = DefaultRules.ruleSet().decide(payment, new Features(
                CardFeatures.firstPayment(payment.getTransactionId(), payment.getAmount().getAmount()), p, null, null));
        assertThat(d.reasons()).extracting(RuleHit::ruleId).contains("recent-profile-change-review");
    }

    /** A profile folded before the change lists existed (schema v1) still answers from its latest change. */
    @Test
    void aProfileWithoutChangeListsAnswersFromItsLatestChange() {
        CustomerProfile v1 = CustomerProfile.newBuilder().setCustomerId("c-1").setRegisteredAt(null).setAddressChangedAt(Times.T0)
                .setEmailChangedAt(null).setDeleted(false).setLastEventId("e1").setLastOccurredAt(Times.T0).build();

        assertThat(CustomerProfiles.addressChangedAtOrBefore(v1, Times.T0.plusSeconds(1))).isEqualTo(Times.T0);
        assertThat(CustomerProfiles.addressChangedAtOrBefore(v1, Times.T0.minusSeconds(1))).isNull();
    }

    private static CustomerProfile fold(List<CustomerEvent> events) {
        CustomerProfile p = null;
        for (CustomerEvent e : events) {
            p = CustomerProfiles.apply(p, e);
        }
        return p;
    }
}
