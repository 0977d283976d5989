package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.state.CustomerProfile;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Folds a customer's change events into the profile the rules use. By event time: a change older than what the
 * profile already holds cannot move a "latest change" backwards, and the same event applied twice changes nothing.
 * The address and e-mail change times are kept as a set (the {@value #KEPT_CHANGES} newest by event time), so the
 * profile is the same whatever order the changes arrived in, and a rule can ask for the latest change at or before
 * a payment's event time: a change logged after the payment but dated later must not hide one dated before it.
 */
public final class CustomerProfiles {
    /** How many address (and e-mail) change times a profile keeps: the newest by event time. */
    public static final int KEPT_CHANGES = 16;

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
                .setLastOccurredAt(later(p.getLastOccurredAt(), at))
                .setAddressChanges(p.getAddressChanges())
                .setEmailChanges(p.getEmailChanges());
        Object change = event.getChange();
        if (change instanceof CustomerRegistered registered) {
            next.setRegisteredAt(registered.getRegisteredAt());
        } else if (change instanceof CustomerAddressChanged) {
            next.setAddressChangedAt(later(p.getAddressChangedAt(), at));
            next.setAddressChanges(withChange(p.getAddressChanges(), at));
        } else if (change instanceof CustomerEmailChanged) {
            next.setEmailChangedAt(later(p.getEmailChangedAt(), at));
            next.setEmailChanges(withChange(p.getEmailChanges(), at));
        } else if (change instanceof CustomerDeleted) {
            next.setDeleted(true);
        }
        return next.build();
    }

    /** The latest address change at or before {@code at}; null if none is known. */
    public static Instant addressChangedAtOrBefore(CustomerProfile profile, Instant at) {
        return latestAtOrBefore(profile.getAddressChanges(), profile.getAddressChangedAt(), at);
    }

    /** The latest e-mail change at or before {@code at}; null if none is known. */
    public static Instant emailChangedAtOrBefore(CustomerProfile profile, Instant at) {
        return latestAtOrBefore(profile.getEmailChanges(), profile.getEmailChangedAt(), at);
    }

    /**
     * The newest of {@code changes} and {@code latest} that is not after {@code at}. {@code latest} counts too: a
     * profile folded before the change lists existed (schema v1) holds only its latest change.
     */
    private static Instant latestAtOrBefore(List<Instant> changes, Instant latest, Instant at) {
        Instant found = latest != null && !latest.isAfter(at) ? latest : null;
        for (Instant change : changes) {
            if (!change.isAfter(at) && (found == null || change.isAfter(found))) {
                found = change;
            }
        }
        return found;
    }

    /** The change times with {@code at} added, oldest first, the newest {@value #KEPT_CHANGES} kept; unchanged if present. */
    private static List<Instant> withChange(List<Instant> changes, Instant at) {
        int i = Collections.binarySearch(changes, at);
        if (i >= 0) {
            return changes;
        }
        List<Instant> next = new ArrayList<>(changes.size() + 1);
        next.addAll(changes);
        next.add(-i - 1, at);
        return next.size() > KEPT_CHANGES ? List.copyOf(next.subList(next.size() - KEPT_CHANGES, next.size())) : next;
    }

    private static Instant later(Instant a, Instant b) {
        return a == null || b.isAfter(a) ? b : a;
    }

    private CustomerProfiles() {
    }
}
