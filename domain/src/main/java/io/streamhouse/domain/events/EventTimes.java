package io.streamhouse.domain.events;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How far ahead of the moment it was written an event's time may be. Processors in event time refuse (dead-letter) an
 * event further ahead: it would carry their watermark past every event written after it, which would then all be
 * late, and a record stamped with it would be refused by a broker whose clock has not reached it. Ingest refuses such
 * an event at the door with the same limit. Judged against the time the record was written (its Kafka timestamp), not
 * a clock read while processing, so a rebuild of the log decides as live did.
 */
public final class EventTimes {
    public static final Duration MAX_AHEAD = Duration.ofMinutes(5);

    /** Why {@code occurredAt} cannot be taken, if it is more than {@link #MAX_AHEAD} after {@code writtenAt}. */
    public static Optional<String> tooFarAhead(Instant occurredAt, Instant writtenAt) {
        if (!occurredAt.isAfter(writtenAt.plus(MAX_AHEAD))) {
            return Optional.empty();
        }
        return Optional.of("event time " + occurredAt + " is " + Duration.between(writtenAt, occurredAt)
                + " ahead of the time the event was written (" + writtenAt + "); at most " + MAX_AHEAD + " is taken");
    }

    private EventTimes() {
    }
}
