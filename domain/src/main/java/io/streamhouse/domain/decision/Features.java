package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.CustomerProfile;

import java.util.Objects;
import java.util.Optional;

/**
 * The always-current state a rule may look at besides the request: the card's recent activity, the customer's
 * profile (if the payment names a known customer), and the latest fraud alert on the card and on the customer.
 */
public record Features(CardFeatures card, CustomerProfile customerProfile, Alert cardAlert, Alert customerAlert) {
    public Features {
        Objects.requireNonNull(card, "card");
    }

    /** Features with only the card's activity known. */
    public static Features of(CardFeatures card) {
        return new Features(card, null, null, null);
    }

    public Optional<CustomerProfile> customer() {
        return Optional.ofNullable(customerProfile);
    }
}
