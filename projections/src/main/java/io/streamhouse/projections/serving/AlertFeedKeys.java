package io.streamhouse.projections.serving;

import java.time.Instant;

/**
 * Keys of the alert feed store: {@code <event time as 13 zero-padded epoch millis>|<alert id>}, so that a byte-wise
 * range scan of one task's store returns its alerts in event-time order, and a cursor is just a key.
 */
public final class AlertFeedKeys {
    private static final int WIDTH = 13;

    public static String of(Instant occurredAt, String alertId) {
        // An alert from before 1970 sorts first rather than making a key that neither sorts nor parses.
        return prefix(Math.max(0, occurredAt.toEpochMilli())) + "|" + alertId;
    }

    /** The smallest key at this instant (inclusive lower bound). */
    public static String lowest(Instant at) {
        return prefix(Math.max(0, at.toEpochMilli())) + "|";
    }

    /** A key above every key at this instant (exclusive upper bound when scanning downwards). */
    public static String highest(Instant at) {
        return prefix(Math.max(0, at.toEpochMilli())) + "|\uffff";
    }

    public static Instant timeOf(String key) {
        return Instant.ofEpochMilli(Long.parseLong(key.substring(0, WIDTH)));
    }

    private static String prefix(long millis) {
        String digits = Long.toString(millis);
        if (digits.length() > WIDTH) {
            throw new IllegalArgumentException("event time out of range: " + millis);
        }
        return "0".repeat(WIDTH - digits.length()) + digits;
    }

    private AlertFeedKeys() {
    }
}
