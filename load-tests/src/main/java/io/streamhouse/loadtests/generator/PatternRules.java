package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The definitions of the planted patterns, shared by the planting code and the checker (and meant for the Detection
 * issue to score against). Normal traffic is generated to stay clear of every one of them.
 *
 * @param cardTestingSmallMax   an authorization of at most this much is "small"
 * @param cardTestingLargeMin   an authorization of at least this much is "large"
 * @param cardTestingMinSmall   how many small ones must precede the large one
 * @param cardTestingWindow     first small to large, at most
 * @param impossibleTravelKmh   two consecutive card-present uses of one card faster than this
 * @param takeoverHighValue     an order total of at least this much is "high value"
 * @param takeoverWindow        contact change to high-value order, at most
 * @param parcelGrace           out for delivery and not delivered by promisedBy + this
 * @param coolantThresholdC     a reading above this is "hot"
 * @param overheatingMinReadings how many consecutive, rising hot readings
 * @param overheatingWindow     first to last of those readings, at most
 */
public record PatternRules(BigDecimal cardTestingSmallMax, BigDecimal cardTestingLargeMin, int cardTestingMinSmall,
                           Duration cardTestingWindow, double impossibleTravelKmh, BigDecimal takeoverHighValue,
                           Duration takeoverWindow, Duration parcelGrace, double coolantThresholdC,
                           int overheatingMinReadings, Duration overheatingWindow) {

    public static final PatternRules DEFAULT = new PatternRules(new BigDecimal("2.00"), new BigDecimal("500.00"), 3,
            Duration.ofMinutes(10), 900, new BigDecimal("1000.00"), Duration.ofHours(1), Duration.ofHours(2), 105.0, 3,
            Duration.ofMinutes(5));

    public PatternRules {
        Objects.requireNonNull(cardTestingSmallMax, "cardTestingSmallMax");
        Objects.requireNonNull(cardTestingLargeMin, "cardTestingLargeMin");
        Objects.requireNonNull(cardTestingWindow, "cardTestingWindow");
        Objects.requireNonNull(takeoverHighValue, "takeoverHighValue");
        Objects.requireNonNull(takeoverWindow, "takeoverWindow");
        Objects.requireNonNull(parcelGrace, "parcelGrace");
        Objects.requireNonNull(overheatingWindow, "overheatingWindow");
        if (cardTestingSmallMax.compareTo(cardTestingLargeMin) >= 0) {
            throw new IllegalArgumentException("cardTestingSmallMax must be below cardTestingLargeMin");
        }
        if (cardTestingMinSmall < 1 || overheatingMinReadings < 2) {
            throw new IllegalArgumentException("cardTestingMinSmall must be >= 1 and overheatingMinReadings >= 2");
        }
    }

    /** The rule parameters of one pattern as text, as they go into the ground truth. */
    public Map<String, String> parametersOf(AlertType type) {
        Map<String, String> p = new LinkedHashMap<>();
        switch (type) {
            case CARD_TESTING -> {
                p.put("smallMax", cardTestingSmallMax.toPlainString());
                p.put("largeMin", cardTestingLargeMin.toPlainString());
                p.put("minSmall", Integer.toString(cardTestingMinSmall));
                p.put("window", cardTestingWindow.toString());
            }
            case IMPOSSIBLE_TRAVEL -> p.put("maxKmh", Double.toString(impossibleTravelKmh));
            case ACCOUNT_TAKEOVER -> {
                p.put("highValue", takeoverHighValue.toPlainString());
                p.put("window", takeoverWindow.toString());
            }
            case PARCEL_SLA_BREACH -> p.put("grace", parcelGrace.toString());
            case ENGINE_OVERHEATING -> {
                p.put("thresholdC", Double.toString(coolantThresholdC));
                p.put("minReadings", Integer.toString(overheatingMinReadings));
                p.put("window", overheatingWindow.toString());
            }
            default -> throw new IllegalArgumentException("no planted pattern of type " + type);
        }
        return p;
    }
}
