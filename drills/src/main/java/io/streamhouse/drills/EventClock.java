package io.streamhouse.drills;

import io.streamhouse.loadtests.generator.GeneratedEvent;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The drill's event time for telemetry and scans: the generator's calendar (about 95 minutes of events for a 40 s
 * drill) scaled onto a span ending {@link #TICK_LEAD} before the load ends (the drill's closing ticks, stamped when it
 * ends, then move the CEP watermark past all of it), order and relative lateness kept (the generator's late events
 * stay late, scaled).
 *
 * <p>Why a span of {@link #SPEED} times the load's duration, not the generator's 140 times and not real time: event
 * time must advance past the CEP job's out-of-orderness bound (30 s) for its patterns to be evaluated at all — at real
 * speed a 40 s drill leaves its watermark behind every event and the drill checks no alert — yet a CEP job restored
 * after tens of seconds down, catching up unevenly across partitions, must not see readings further behind its
 * watermark than a pattern's retention (10 minutes for engine overheating), where live drops by design what a rebuild
 * keeps: at 140 times, 18 s of backlog was 42 minutes of event time. At 5 times, 40 s of backlog is 200 s.
 */
record EventClock(long firstMs, long startMs, double scale) {
    /** How much faster than the wall clock the drill's telemetry and scans move in event time. */
    static final int SPEED = 5;
    /** How far the closing ticks are after the load's last event: more than the CEP job's default 30 s bound. */
    static final Duration TICK_LEAD = Duration.ofSeconds(31);

    /** One vehicle id per partition of a topic with {@code partitions}, as Kafka's default partitioner places keys. */
    static List<String> tickVehicles(long seed, int partitions) {
        String[] byPartition = new String[partitions];
        int found = 0;
        for (int i = 0; found < partitions; i++) {
            String id = "drill-tick-" + Long.toHexString(seed) + "-" + i;
            int p = org.apache.kafka.common.utils.Utils.toPositive(
                    org.apache.kafka.common.utils.Utils.murmur2(id.getBytes(java.nio.charset.StandardCharsets.UTF_8))) % partitions;
            if (byPartition[p] == null) {
                byPartition[p] = id;
                found++;
            }
        }
        return List.of(byPartition);
    }

    /** Maps the events' span onto {@code [loadEnd - span, loadEnd]}. */
    static EventClock onto(List<GeneratedEvent> events, Instant loadEnd, Duration span) {
        long end = loadEnd.toEpochMilli();
        long first = events.stream().mapToLong(e -> e.occurredAt().toEpochMilli()).min().orElse(end);
        long last = events.stream().mapToLong(e -> e.occurredAt().toEpochMilli()).max().orElse(end);
        double scale = last == first ? 0 : (double) span.toMillis() / (last - first);
        return new EventClock(first, last == first ? end : end - span.toMillis(), scale);
    }

    Instant at(Instant generated) {
        return Instant.ofEpochMilli(startMs + Math.round((generated.toEpochMilli() - firstMs) * scale));
    }
}
