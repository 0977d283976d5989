package io.streamhouse.launcher;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The CEP job's lag: end offsets less the group's committed offsets, per topic, over the committed partitions only. */
class ConsumerLagTest {
    private static final TopicPartition TX0 = new TopicPartition("payments.transactions.requested", 0);
    private static final TopicPartition TX1 = new TopicPartition("payments.transactions.requested", 1);
    private static final TopicPartition ORDERS0 = new TopicPartition("shop.orders", 0);
    private static final TopicPartition SCANS0 = new TopicPartition("parcels.scans", 0);

    @Test
    void lagIsEndLessCommittedSummedPerTopic() {
        ConsumerLag.Lag lag = ConsumerLag.of(Map.of(TX0, 1200L, TX1, 800L, ORDERS0, 50L, SCANS0, 9L),
                Map.of(TX0, 200L, TX1, 600L, ORDERS0, 16L, SCANS0, 9L));

        assertThat(lag.total()).isEqualTo(1234);
        assertThat(lag.perTopic()).containsExactly(Map.entry("parcels.scans", 0L),
                Map.entry("payments.transactions.requested", 1200L), Map.entry("shop.orders", 34L));
        assertThat(lag.line()).isEqualTo("cep lag: 1234 records behind the end of its inputs "
                + "(payments.transactions.requested 1200, shop.orders 34)");
    }

    @Test
    void nothingCommittedIsUnknownAndAnEndBelowTheCommittedOffsetIsNoLag() {
        assertThat(ConsumerLag.of(Map.of(TX0, 5L), Map.of()).line()).isEqualTo("cep lag: unknown (the job has committed no offsets yet)");
        assertThat(ConsumerLag.of(Map.of(TX0, 5L), Map.of(TX0, 9L)).line()).isEqualTo("cep lag: 0 records behind the end of its inputs");
    }
}
