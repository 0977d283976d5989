package io.streamhouse.domain.decision;

import java.util.Objects;

/**
 * The always-current state a rule may look at besides the request. Grows with the Decisions issue (customer
 * profile, recent address or e-mail change, cards flagged by CEP alerts).
 */
public record Features(CardFeatures card) {
    public Features {
        Objects.requireNonNull(card, "card");
    }
}
