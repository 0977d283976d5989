package io.streamhouse.domain.testdata;

import java.time.Duration;
import java.time.Instant;

/**
 * Event times a producer's clock can put on an event, relative to when its record is written: a little ahead (taken),
 * hours and years ahead (more than {@code EventTimes.MAX_AHEAD}: refused), and before 1970 (taken as a late event).
 */
public enum Skews {
    TWO_MINUTES_AHEAD(true),
    TWO_HOURS_AHEAD(false),
    THREE_YEARS_AHEAD(false),
    BEFORE_1970(true);

    /** An event time no Kafka timestamp can be. */
    public static final Instant MOON_LANDING = Instant.parse("1969-07-20T20:17:40Z");

    private final boolean taken;

    Skews(boolean taken) {
        this.taken = taken;
    }

    /** Whether a processor takes an event this far off its write (else it dead-letters it). */
    public boolean taken() {
        return taken;
    }

    public Instant eventTime(Instant writtenAt) {
        return switch (this) {
            case TWO_MINUTES_AHEAD -> writtenAt.plus(Duration.ofMinutes(2));
            case TWO_HOURS_AHEAD -> writtenAt.plus(Duration.ofHours(2));
            case THREE_YEARS_AHEAD -> writtenAt.plus(Duration.ofDays(3 * 365 + 1));
            case BEFORE_1970 -> MOON_LANDING;
        };
    }
}
