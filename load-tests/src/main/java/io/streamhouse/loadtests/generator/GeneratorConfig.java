package io.streamhouse.loadtests.generator;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Everything a run depends on. Same config, same bytes.
 *
 * @param events          exactly this many events are generated
 * @param start           event time of the first activity; there is no other source of time
 * @param lateRatio       share of events delivered out of event-time order (0..0.5)
 * @param latenessBound   the allowed lateness a consumer is assumed to use; {@code beyondBoundShare} of the late
 *                        events are delayed past it
 * @param meanGap         mean event time between two activities (exponential)
 * @param customers       world size; cards are 1-2 per customer
 * @param vehicles        world size
 */
public record GeneratorConfig(long seed, int events, Instant start, double lateRatio, Duration latenessBound,
                              double beyondBoundShare, AnomalyRates rates, PatternRules rules, Duration meanGap,
                              int customers, int vehicles) {

    public static final Instant DEFAULT_START = Instant.parse("2026-03-02T09:00:00Z");

    public GeneratorConfig {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(latenessBound, "latenessBound");
        Objects.requireNonNull(rates, "rates");
        Objects.requireNonNull(rules, "rules");
        Objects.requireNonNull(meanGap, "meanGap");
        if (events < 1) {
            throw new IllegalArgumentException("events must be at least 1, was " + events);
        }
        if (!(lateRatio >= 0 && lateRatio <= 0.5)) {
            throw new IllegalArgumentException("late ratio must be between 0 and 0.5, was " + lateRatio);
        }
        if (!(beyondBoundShare >= 0 && beyondBoundShare <= 1)) {
            throw new IllegalArgumentException("beyondBoundShare must be between 0 and 1, was " + beyondBoundShare);
        }
        if (latenessBound.toMillis() < 2 || meanGap.toMillis() < 1) {
            throw new IllegalArgumentException("latenessBound must be at least 2 ms and meanGap at least 1 ms");
        }
        if (customers < 10 || vehicles < 2) {
            throw new IllegalArgumentException("need at least 10 customers and 2 vehicles");
        }
        if (start.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("start must be whole milliseconds (the wire keeps milliseconds)");
        }
    }

    public static GeneratorConfig defaults(long seed, int events) {
        return new GeneratorConfig(seed, events, DEFAULT_START, 0.10, Duration.ofSeconds(30), 0.2,
                AnomalyRates.DEFAULT, PatternRules.DEFAULT, Duration.ofMillis(200), 2_000, 40);
    }

    public GeneratorConfig withStart(Instant s) {
        return new GeneratorConfig(seed, events, s, lateRatio, latenessBound, beyondBoundShare, rates, rules, meanGap,
                customers, vehicles);
    }

    public GeneratorConfig withLateRatio(double r) {
        return new GeneratorConfig(seed, events, start, r, latenessBound, beyondBoundShare, rates, rules, meanGap,
                customers, vehicles);
    }

    public GeneratorConfig withLatenessBound(Duration b) {
        return new GeneratorConfig(seed, events, start, lateRatio, b, beyondBoundShare, rates, rules, meanGap,
                customers, vehicles);
    }

    public GeneratorConfig withRates(AnomalyRates r) {
        return new GeneratorConfig(seed, events, start, lateRatio, latenessBound, beyondBoundShare, r, rules, meanGap,
                customers, vehicles);
    }
}
