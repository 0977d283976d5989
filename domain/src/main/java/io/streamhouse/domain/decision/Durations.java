package io.streamhouse.domain.decision;

import java.time.Duration;
import java.time.Instant;

/** Small helpers for rules that look back from the request's event time. */
final class Durations {

    /** Whether {@code at} lies in {@code (now - window, now]}; false when {@code at} is unknown. */
    static boolean within(Instant at, Instant now, Duration window) {
        return at != null && at.isAfter(now.minus(window)) && !at.isAfter(now);
    }

    /** A rule's text form of a duration: ISO-8601, e.g. PT1H. */
    static String text(Duration d) {
        return d.toString();
    }

    private Durations() {
    }
}
