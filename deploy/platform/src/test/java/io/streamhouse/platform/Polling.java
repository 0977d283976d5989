package io.streamhouse.platform;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Polls with a deadline: never an unbounded loop, never a sleep. */
final class Polling {
    private Polling() {
    }

    /** Everything polled until at least {@code count} records arrived; fails when the deadline passes first. */
    static <K, V> List<ConsumerRecord<K, V>> atLeast(KafkaConsumer<K, V> consumer, int count, Duration deadline) {
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        long end = System.nanoTime() + deadline.toNanos();
        while (records.size() < count) {
            if (System.nanoTime() > end) {
                throw new AssertionError("expected at least " + count + " records within " + deadline + ", got " + records);
            }
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }
}
