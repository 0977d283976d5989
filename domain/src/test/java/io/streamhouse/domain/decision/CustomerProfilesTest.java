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

import java.time.Instant;

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
}
