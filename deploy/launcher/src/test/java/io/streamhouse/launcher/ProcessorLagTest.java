package io.streamhouse.launcher;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** A processor's lag in records and in seconds: the age of the oldest unconsumed record over its lagging partitions. */
class ProcessorLagTest {
    private static final Instant NOW = Instant.parse("2026-12-04T10:00:00Z");
    private static final ProcessorLag.Processor SERVING = new ProcessorLag.Processor("api serving", "streamhouse-serving");
    private static final TopicPartition SCANS0 = new TopicPartition("parcels.scans", 0);
    private static final TopicPartition SCANS1 = new TopicPartition("parcels.scans", 1);
    private static final TopicPartition ORDERS0 = new TopicPartition("shop.orders", 0);

    private static long secondsAgo(double s) {
        return NOW.toEpochMilli() - (long) (s * 1000);
    }

    @Test
    void secondsAreTheAgeOfTheOldestRecordAtACommittedOffsetOverTheLaggingPartitions() {
        ProcessorLag.Entry lag = ProcessorLag.of(SERVING,
                Map.of(SCANS0, 120L, SCANS1, 40L, ORDERS0, 7L),
                Map.of(SCANS0, 100L, SCANS1, 40L, ORDERS0, 2L),
                Map.of(SCANS0, secondsAgo(3.5), ORDERS0, secondsAgo(12.25)), NOW);

        assertThat(lag.records()).contains(25L);
        assertThat(lag.seconds()).contains(12.25);
        assertThat(lag.perTopic()).containsExactly(Map.entry("parcels.scans", 20L), Map.entry("shop.orders", 5L));
        assertThat(lag.unknown()).isEmpty();
        assertThat(lag.line()).isEqualTo("lag api serving: 25 records, 12.3 s behind");
    }

    @Test
    void caughtUpIsZeroSecondsWhateverTheOldRecordsSay() {
        ProcessorLag.Entry lag = ProcessorLag.of(SERVING, Map.of(SCANS0, 120L), Map.of(SCANS0, 120L),
                Map.of(SCANS0, secondsAgo(3600)), NOW);

        assertThat(lag.records()).contains(0L);
        assertThat(lag.seconds()).contains(0.0);
        assertThat(ProcessorLag.lagging(Map.of(SCANS0, 120L), Map.of(SCANS0, 120L))).isEmpty();
    }

    @Test
    void aRecordStampedAheadOfThisClockIsNoLagAndARecordNotReadInTimeLeavesTheSecondsUnknown() {
        ProcessorLag.Entry ahead = ProcessorLag.of(SERVING, Map.of(SCANS0, 5L), Map.of(SCANS0, 4L),
                Map.of(SCANS0, NOW.toEpochMilli() + 2000), NOW);
        assertThat(ahead.seconds()).contains(0.0);

        ProcessorLag.Entry unread = ProcessorLag.of(SERVING, Map.of(SCANS0, 5L, ORDERS0, 9L), Map.of(SCANS0, 4L, ORDERS0, 1L),
                Map.of(SCANS0, secondsAgo(1)), NOW);
        assertThat(unread.records()).contains(9L);
        assertThat(unread.seconds()).isEmpty();
        assertThat(unread.unknown()).hasValueSatisfying(u -> assertThat(u).contains("shop.orders-0"));
        assertThat(unread.json().path("seconds").isNull()).isTrue();
        assertThat(unread.json().path("records").asLong()).isEqualTo(9);
    }

    @Test
    void theConsumerTakesOneRecordPerLaggingPartitionAndTellsAPartitionWithOnlyMarkersLeft() {
        var consumer = new org.apache.kafka.clients.consumer.MockConsumer<byte[], byte[]>("earliest");
        consumer.updateBeginningOffsets(Map.of(SCANS0, 0L, ORDERS0, 0L));
        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(SCANS0, 100, secondsAgo(3)));
            consumer.addRecord(record(SCANS0, 101, secondsAgo(1)));
            consumer.seek(ORDERS0, 8); // a transaction marker at 7: the position passes it, no record comes
        });
        var found = new java.util.HashMap<TopicPartition, java.util.NavigableMap<Long, Long>>();

        var markersFrom = ProcessorLag.headTimestamps(consumer, Map.of(SCANS0, new java.util.TreeSet<>(List.of(100L)),
                ORDERS0, new java.util.TreeSet<>(List.of(7L))), Map.of(SCANS0, 120L, ORDERS0, 8L), Instant.now().plusSeconds(5), found);

        assertThat(found).containsExactly(Map.entry(SCANS0, new java.util.TreeMap<>(Map.of(100L, secondsAgo(3)))));
        assertThat(markersFrom).containsExactly(Map.entry(ORDERS0, 7L));
        assertThat(consumer.assignment()).as("nothing left assigned between polls").isEmpty();
    }

    @Test
    void twoGroupsOnOnePartitionEachGetTheirOwnOldestUnreadRecord() {
        var consumer = new org.apache.kafka.clients.consumer.MockConsumer<byte[], byte[]>("earliest");
        consumer.updateBeginningOffsets(Map.of(SCANS0, 0L));
        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(SCANS0, 40, secondsAgo(30)));
            consumer.addRecord(record(SCANS0, 41, secondsAgo(29)));
        });
        consumer.schedulePollTask(() -> consumer.addRecord(record(SCANS0, 100, secondsAgo(2))));
        var found = new java.util.HashMap<TopicPartition, java.util.NavigableMap<Long, Long>>();

        var markersFrom = ProcessorLag.headTimestamps(consumer, Map.of(SCANS0, new java.util.TreeSet<>(List.of(40L, 100L))),
                Map.of(SCANS0, 120L), Instant.now().plusSeconds(5), found);

        assertThat(found.get(SCANS0)).as("the lake sink at 40, serving at 100").containsExactly(
                Map.entry(40L, secondsAgo(30)), Map.entry(100L, secondsAgo(2)));
        assertThat(markersFrom).isEmpty();
    }

    private static org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, long timestamp) {
        return new org.apache.kafka.clients.consumer.ConsumerRecord<>(tp.topic(), tp.partition(), offset, timestamp,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0, 0, new byte[0], new byte[0],
                new org.apache.kafka.common.header.internals.RecordHeaders(), Optional.empty());
    }

    @Test
    void aGroupWithNoCommittedOffsetsIsUnknown() {
        ProcessorLag.Entry lag = ProcessorLag.of(SERVING, Map.of(SCANS0, 5L), Map.of(), Map.of(), NOW);

        assertThat(lag.records()).isEmpty();
        assertThat(lag.json().toString()).isEqualTo("{\"processor\":\"api serving\",\"group\":\"streamhouse-serving\","
                + "\"records\":null,\"seconds\":null,\"perTopic\":{},\"unknown\":\"the group has committed no offsets\"}");
    }

    @Test
    void theStacksProcessorsFollowThePartsThatRun() {
        assertThat(ProcessorLag.ofStack("streamhouse-serving-2", true, true, true)).extracting(ProcessorLag.Processor::group)
                .containsExactly("streamhouse-api", "streamhouse-serving-2", "streamhouse-ingest-cdc", "connect-lake", "streamhouse-cep");
        assertThat(ProcessorLag.ofStack("streamhouse-serving", false, false, false)).extracting(ProcessorLag.Processor::processor)
                .containsExactly("api decisions", "api serving");
    }
}
