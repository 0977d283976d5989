package io.streamhouse.replay;

import io.streamhouse.loadtests.generator.GeneratedEvent;

import java.time.Instant;
import java.util.List;

/**
 * The drill's event time: the generator's calendar scaled onto the load's wall-clock seconds, so that a device's
 * readings are as far apart in event time as they are in sending, as real telemetry is. Compressing ~95 minutes of
 * events into 40 s made a restored CEP job that caught up on 18 s of backlog unevenly across partitions see readings
 * tens of minutes behind its watermark — past a pattern's retention, where live drops what a rebuild keeps. Order and
 * relative lateness between events are kept (the generator's late events stay late, scaled).
 */
record EventClock(long firstMs, long beganMs, double scale) {

    /** Maps the events' span onto {@code [began, began + durationSeconds]}. */
    static EventClock onto(List<GeneratedEvent> events, long beganMs, int durationSeconds) {
        long first = events.stream().mapToLong(e -> e.occurredAt().toEpochMilli()).min().orElse(beganMs);
        long last = events.stream().mapToLong(e -> e.occurredAt().toEpochMilli()).max().orElse(beganMs);
        double scale = last == first ? 0 : durationSeconds * 1000.0 / (last - first);
        return new EventClock(first, beganMs, scale);
    }

    Instant at(Instant generated) {
        return Instant.ofEpochMilli(beganMs + Math.round((generated.toEpochMilli() - firstMs) * scale));
    }
}
