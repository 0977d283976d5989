package io.streamhouse.drills;

import io.streamhouse.loadtests.generator.GeneratedEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EventClockTest {
    private static final Instant LOAD_END = Instant.parse("2026-12-02T12:00:40Z");

    /** The drill's own 40 s of telemetry and scans at 20/s: 200 s of event time ending with the load, in their order. */
    @Test
    void theDrillsEventsSpanFiveTimesTheLoadEndingWithItInTheirOrder() {
        List<GeneratedEvent> events = AsyncLoad.events(42, 20 * 40);
        EventClock clock = EventClock.onto(events, LOAD_END, Duration.ofSeconds(40L * EventClock.SPEED));

        List<Instant> mapped = events.stream().map(e -> clock.at(e.occurredAt())).toList();
        Instant first = mapped.stream().min(Instant::compareTo).orElseThrow();
        Instant last = mapped.stream().max(Instant::compareTo).orElseThrow();
        assertThat(last).isEqualTo(LOAD_END);
        assertThat(Duration.between(first, last)).isEqualTo(Duration.ofSeconds(200));
        Duration generatedSpan = Duration.between(
                events.stream().map(GeneratedEvent::occurredAt).min(Instant::compareTo).orElseThrow(),
                events.stream().map(GeneratedEvent::occurredAt).max(Instant::compareTo).orElseThrow());
        assertThat(generatedSpan).as("the generator's calendar is much longer than the load").isGreaterThan(Duration.ofMinutes(10));
        for (int i = 0; i < events.size(); i++) {
            for (int j = i + 1; j < Math.min(events.size(), i + 50); j++) {
                // Never reversed; events a few ms apart in generator time may share a millisecond after scaling.
                int generated = events.get(i).occurredAt().compareTo(events.get(j).occurredAt());
                int scaled = mapped.get(i).compareTo(mapped.get(j));
                assertThat(generated < 0 ? scaled <= 0 : generated > 0 ? scaled >= 0 : scaled == 0)
                        .as("order of events %d and %d", i, j).isTrue();
            }
        }
    }

    @Test
    void oneEventIsAtTheLoadsEnd() {
        List<GeneratedEvent> events = AsyncLoad.events(42, 1);
        EventClock clock = EventClock.onto(events, LOAD_END, Duration.ofSeconds(200));
        assertThat(clock.at(events.get(0).occurredAt())).isEqualTo(LOAD_END);
    }

    /** One tick per partition, placed where Kafka's default partitioner puts a record with that key. */
    @Test
    void theTickVehiclesCoverEveryPartitionOnce() {
        List<String> ids = EventClock.tickVehicles(7, 6);
        assertThat(ids).hasSize(6).doesNotHaveDuplicates();
        for (int p = 0; p < 6; p++) {
            byte[] key = ids.get(p).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            assertThat(org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(key)) % 6)
                    .as(ids.get(p)).isEqualTo(p);
        }
    }
}
