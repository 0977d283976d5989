package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;

/**
 * How many occurrences of each pattern to plant per 1,000 generated events. Planting is stratified: the run is cut
 * into strides of {@code 1000 / rate} events and one occurrence starts at a random point inside each stride, so the
 * count is {@code events * rate / 1000} give or take one, while the positions stay random.
 */
public record AnomalyRates(double cardTesting, double impossibleTravel, double accountTakeover, double parcelStuck,
                           double engineOverheating) {

    public static final AnomalyRates DEFAULT = new AnomalyRates(1.0, 1.0, 0.5, 1.0, 1.0);
    public static final AnomalyRates NONE = new AnomalyRates(0, 0, 0, 0, 0);

    public AnomalyRates {
        for (double r : new double[]{cardTesting, impossibleTravel, accountTakeover, parcelStuck, engineOverheating}) {
            if (!(r >= 0 && r <= 50)) {
                throw new IllegalArgumentException("anomaly rates are per 1,000 events, between 0 and 50; was " + r);
            }
        }
    }

    public double of(AlertType type) {
        return switch (type) {
            case CARD_TESTING -> cardTesting;
            case IMPOSSIBLE_TRAVEL -> impossibleTravel;
            case ACCOUNT_TAKEOVER -> accountTakeover;
            case PARCEL_SLA_BREACH -> parcelStuck;
            case ENGINE_OVERHEATING -> engineOverheating;
            default -> 0;
        };
    }
}
