package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.state.CustomerProfile;

import java.time.Instant;

/**
 * Folds a customer's change events into the profile the rules use. By event time: a change older than what the
 * profile already holds cannot move a "latest change" backwards, and the same event applied twice changes nothing.
 */
public final class CustomerProfiles {

    public static CustomerProfile apply(CustomerProfile profile, CustomerEvent event) {
        Instant at = event.getEnvelope().getOccurredAt();
        String eventId = event.getEnvelope().getEventId();
        CustomerProfile p = profile != null ? profile : CustomerProfile.newBuilder()
                .setCustomerId(event.getCustomerId()).setRegisteredAt(null).setAddressChangedAt(null)
                .setEmailChangedAt(null).setDeleted(false).setLastEventId(eventId).setLastOccurredAt(at).build();
        if (profile != null && eventId.equals(profile.getLastEventId())) {
            return profile;
        }
        CustomerProfile.Builder next = CustomerProfile.newBuilder()
                .setCustomerId(p.getCustomerId())
                .setRegisteredAt(p.getRegisteredAt())
                .setAddressChangedAt(p.getAddressChangedAt())
                .setEmailChangedAt(p.getEmailChangedAt())
                .setDeleted(p.getDeleted())
                .setLastEventId(eventId)
                .setLastOccurredAt(later(p.getLastOccurredAt(), at));
        Object change = event.getChange();
        if (change instanceof CustomerRegistered registered) {
            next.setRegisteredAt(registered.getRegisteredAt());
        } else if (change instanceof CustomerAddressChanged) {
            next.setAddressChangedAt(later(p.getAddressChangedAt(), at));
        } else if (change instanceof CustomerEmailChanged) {
            next.setEmailChangedAt(later(p.getEmailChangedAt(), at));
        } else if (change instanceof CustomerDeleted) {
            next.setDeleted(true);
        }
        return next.build();
    }

    private static Instant later(Instant a, Instant b) {
        return a == null || b.isAfter(a) ? b : a;
    }

    private CustomerProfiles() {
    }
}
