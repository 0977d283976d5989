package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.state.CustomerProfile;

import java.util.Objects;
import java.util.Optional;

/**
 * The always-current state a rule may look at besides the request: the card's recent activity, the customer's
 * profile (if the payment names a known customer), and the latest fraud alert on the card and on the customer. A
 * latest alert that is a withdrawal (status WITHDRAWN: the CEP job found the alert it supersedes false) is no alert.
 */
public record Features(CardFeatures card, CustomerProfile customerProfile, Alert cardAlert, Alert customerAlert) {
    public Features {
        Objects.requireNonNull(card, "card");
        cardAlert = inEffect(cardAlert);
        customerAlert = inEffect(customerAlert);
    }

    private static Alert inEffect(Alert latest) {
        return latest == null || latest.getStatus() == AlertStatus.WITHDRAWN ? null : latest;
    }

    /** Features with only the card's activity known. */
    public static Features of(CardFeatures card) {
        return new Features(card, null, null, null);
    }

    public Optional<CustomerProfile> customer() {
        return Optional.ofNullable(customerProfile);
    }
}
