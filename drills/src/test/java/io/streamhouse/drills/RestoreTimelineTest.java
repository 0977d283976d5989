package io.streamhouse.drills;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class RestoreTimelineTest {
    private static final String PREFIX = "2026-12-02 23:54:35,208 INFO  [io.streamhouse.api.streams.StreamsTimeline] (streamhouse-serving-1-StreamThread-2) ";

    /** Both applications restore side by side: their records add up over the span from the first start to the last end. */
    @Test
    void theApisRestoreIsBothApplicationsRecordsOverTheirCommonSpan() {
        String log = PREFIX + "decision streams: CREATED -> REBALANCING 6.1 s after the JVM started\n"
                + "2026-12-02 INFO [io.smallrye.health] Reporting health down status: {\"status\":\"DOWN\"}\n"
                + PREFIX + "serving projections: REBALANCING -> RUNNING 31.0 s after the JVM started; restored 900000 records into 30 "
                + "store partitions between 9.5 s and 30.5 s\n"
                + PREFIX + "decision streams: REBALANCING -> RUNNING 12.0 s after the JVM started; restored 100000 records into 28 "
                + "store partitions between 9.0 s and 11.5 s\n";

        RestoreTimeline.Restore restore = RestoreTimeline.parse(log).orElseThrow();

        assertThat(restore.apps()).containsOnlyKeys("serving projections", "decision streams");
        assertThat(restore.records()).isEqualTo(1_000_000);
        assertThat(restore.partitions()).isEqualTo(58);
        assertThat(restore.seconds()).isCloseTo(21.5, within(1e-9));
        assertThat(restore.recordsPerSec()).isCloseTo(1_000_000 / 21.5, within(1e-6));
    }

    /** The counts are cumulative over one run: after a rebalance the later line holds the earlier restore as well. */
    @Test
    void aLaterRunningLineOfTheSameApplicationReplacesTheEarlierOne() {
        String log = PREFIX + "serving projections: REBALANCING -> RUNNING 20.0 s after the JVM started; restored 500 records into 10 "
                + "store partitions between 9.0 s and 19.0 s\n"
                + PREFIX + "serving projections: REBALANCING -> RUNNING 40.0 s after the JVM started; restored 800 records into 12 "
                + "store partitions between 9.0 s and 39.0 s\n";

        RestoreTimeline.Restore restore = RestoreTimeline.parse(log).orElseThrow();

        assertThat(restore.records()).isEqualTo(800);
        assertThat(restore.partitions()).isEqualTo(12);
        assertThat(restore.seconds()).isCloseTo(30.0, within(1e-9));
    }

    @Test
    void aRunWithoutARestoreLineHasNoRestore() {
        String log = PREFIX + "serving projections: REBALANCING -> RUNNING 10.7 s after the JVM started\n";

        assertThat(RestoreTimeline.parse(log)).isEmpty();
    }
}
