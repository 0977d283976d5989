package io.streamhouse.replay;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The shadow's settings, and the guard that makes at-least-once safe for a rebuild. */
class ShadowRunTest {

    @Test
    void servingIsRebuiltAtLeastOnceOnTwoThreadsAndDecisionsExactlyOnce() {
        assertThat(ShadowRun.settings(Target.SERVING))
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE)
                .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
        assertThat(ShadowRun.settings(Target.DECISIONS))
                .as("it reads its own fraud flags back, as live does: once committed")
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        for (Target target : Target.values()) {
            assertThat(ShadowRun.settings(target)).as("%s reads what live reads: committed records only (an aborted "
                            + "transaction's alerts are not on live's log)", target)
                    .containsEntry(StreamsConfig.consumerPrefix("isolation.level"), "read_committed");
        }
    }

    @Test
    void aDecisionsShadowIsCaughtUpOnItsStreamInputsWhileItsProfileStoreAppliesTheWholeCut() {
        TopicPartition customers = new TopicPartition("shop.customers", 0), requests = new TopicPartition("payments.transactions.requested", 0);
        TopicPartition stitchedCustomers = new TopicPartition("bf.shop.customers", 0);
        Cut cut = new Cut(java.util.Map.of(customers, 40L, requests, 90L, stitchedCustomers, 7L),
                java.util.Map.of(customers, 0L, requests, 10L, stitchedCustomers, 0L));

        // The global store's thread commits no group offsets: waiting for them on shop.customers never ends.
        Cut committed = Target.DECISIONS.committedPart(cut, io.streamhouse.plumbing.OutputTopics.LIVE);
        assertThat(committed.offsets()).containsOnlyKeys(requests, stitchedCustomers);
        assertThat(committed.span()).isEqualTo(80 + 7);
        assertThat(Target.DECISIONS.committedPart(cut, new io.streamhouse.plumbing.OutputTopics("x.").withInputs("bf."))
                .offsets()).as("a backfill reads the stitched copy").containsOnlyKeys(customers, requests);
        assertThat(Target.SERVING.committedPart(cut, io.streamhouse.plumbing.OutputTopics.LIVE)).isEqualTo(cut);
    }

    @Test
    void aStoreRestoredFromItsChangelogMidRunFailsTheShadow() {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        var guard = new ShadowRun.NoReprocessing(failure);
        TopicPartition changelog = new TopicPartition("streamhouse-serving-shadow-x-customer-state-changelog", 3);

        guard.onRestoreStart(changelog, "customer-state", 0, 0); // a task opened on its empty changelog
        guard.onRestoreStart(changelog, "customer-state", 120, 120); // handed over cleanly: checkpointed at the end
        assertThat(failure.get()).isNull();

        guard.onRestoreStart(changelog, "customer-state", 100, 120); // reopened after a dirty close
        assertThat(failure.get()).hasMessageContaining("customer-state").hasMessageContaining("restored 20 records")
                .hasMessageContaining("discard it and rebuild");
    }
}
