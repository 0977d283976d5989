package io.streamhouse.loadtests.generator;

import java.time.Instant;

/**
 * An event delivered out of event-time order on purpose.
 *
 * @param latenessMillis event time of the newest event delivered before it, minus its own event time
 * @param beyondBound    whether that exceeds the configured lateness bound (a detector with that allowed lateness
 *                       would drop or side-output it)
 */
public record LateEvent(String eventId, EventKind kind, String key, Instant occurredAt, int deliveryIndex,
                        long latenessMillis, boolean beyondBound) {
}
