package io.streamhouse.replay;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The completion checks against a scripted broker, replaying the race seen in ReplayIT: the transaction that committed a
 * shadow's input offsets at the cut also wrote its repartition records, and its offsets became visible before its
 * commit marker reached the repartition partition, so the repartition topic ended (read_committed) before all of them.
 */
class GroupsTest {
    private static final String GROUP = "shadow";
    private static final String REPARTITION = GROUP + "-customer-orders-repartition";
    private static final TopicPartition INPUT = new TopicPartition("orders", 0);
    private static final TopicPartition RP = new TopicPartition(REPARTITION, 0);
    private static final Cut CUT = new Cut(Map.of(INPUT, 500L), Map.of(INPUT, 0L));

    /** A broker whose state the test moves on between polls. */
    private static final class ScriptedLog implements Groups.Log {
        final Map<TopicPartition, Long> committed = new HashMap<>();
        final Map<TopicPartition, Long> lastStable = new HashMap<>();
        final Map<TopicPartition, Long> logEnd = new HashMap<>();
        Runnable onPoll = () -> { };

        @Override
        public Map<TopicPartition, Long> committed(String groupId) {
            onPoll.run();
            return Map.copyOf(committed);
        }

        @Override
        public Set<String> topicsWithPrefix(String prefix) {
            return REPARTITION.startsWith(prefix) ? Set.of(REPARTITION) : Set.of();
        }

        @Override
        public Map<TopicPartition, Long> lastStable(Collection<String> topics) {
            return Map.copyOf(lastStable);
        }

        @Override
        public Map<TopicPartition, Long> logEnds(Collection<String> topics) {
            return Map.copyOf(logEnd);
        }
    }

    /** Inputs committed at the cut; 479 repartition records written in that transaction, its marker not yet there. */
    private static ScriptedLog markerPending() {
        ScriptedLog log = new ScriptedLog();
        log.committed.put(INPUT, 500L);
        log.logEnd.put(RP, 479L);
        log.lastStable.put(RP, 0L);
        return log;
    }

    @Test
    void notDrainedWhileTheRepartitionRecordsOfTheCutsTransactionAreUnprocessed() throws Exception {
        ScriptedLog log = markerPending();
        int[] polls = {0};
        long[] committedWhenDone = {-1};
        log.onPoll = () -> {
            polls[0]++;
            if (polls[0] == 3) { // the marker lands: the 479 records are readable
                log.lastStable.put(RP, 480L);
                log.logEnd.put(RP, 480L);
            }
            if (polls[0] == 6) { // the downstream task has processed them and committed
                log.committed.put(RP, 480L);
            }
            committedWhenDone[0] = log.committed.getOrDefault(RP, -1L);
        };

        boolean done = Groups.awaitCaughtUp(log, GROUP, CUT, List.of(REPARTITION), Duration.ofSeconds(10), Duration.ofMillis(1),
                left -> { }, () -> false);

        assertThat(done).isTrue();
        assertThat(committedWhenDone[0]).as("the repartition offset committed when the check said drained").isEqualTo(480L);
    }

    @Test
    void aTransactionThatNeverClosesIsATimeoutNotCompletion() throws Exception {
        ScriptedLog log = markerPending();

        assertThat(Groups.awaitCaughtUp(log, GROUP, CUT, List.of(REPARTITION), Duration.ofMillis(200), Duration.ofMillis(1),
                left -> { }, () -> false)).isFalse();
    }

    @Test
    void drainedNeedsTheLastStableOffsetAndTheCommittedOffsetAtTheTarget() {
        Map<TopicPartition, Long> target = Map.of(RP, 479L);
        assertThat(Groups.drained(Map.of(), target, Map.of(RP, 0L))).isFalse();
        assertThat(Groups.drained(Map.of(RP, 0L), target, Map.of(RP, 0L))).as("offset at the stale last stable offset").isFalse();
        assertThat(Groups.drained(Map.of(RP, 0L), target, Map.of(RP, 480L))).as("readable, not processed").isFalse();
        assertThat(Groups.drained(Map.of(RP, 480L), target, Map.of(RP, 480L))).isTrue();
    }

    @Test
    void settledEndsWaitForTheOpenTransactionsMarker() throws Exception {
        ScriptedLog log = new ScriptedLog();
        TopicPartition changelog = new TopicPartition("shadow-customer-state-changelog", 0);
        log.logEnd.put(changelog, 479L);
        log.lastStable.put(changelog, 12L); // the closed shadow's last commit: offsets visible, changelog marker not yet
        // The marker lands between reads: the first two reads still see the stale last stable offset, the third 480.
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();

        Map<TopicPartition, Long> ends = Groups.settledEnds(new Groups.Log() {
            public Map<TopicPartition, Long> committed(String g) {
                return Map.of();
            }

            public Set<String> topicsWithPrefix(String p) {
                return Set.of();
            }

            public Map<TopicPartition, Long> lastStable(Collection<String> t) {
                if (reads.incrementAndGet() == 3) {
                    log.lastStable.put(changelog, 480L);
                }
                return Map.copyOf(log.lastStable);
            }

            public Map<TopicPartition, Long> logEnds(Collection<String> t) {
                return log.logEnds(t);
            }
        }, List.of(changelog.topic()), Duration.ofSeconds(10), Duration.ofMillis(1));

        assertThat(ends).containsEntry(changelog, 479L);
        assertThat(reads).as("read until the marker landed").hasValueGreaterThanOrEqualTo(3);
    }

    @Test
    void aChangelogTransactionThatStaysOpenIsAClearError() {
        ScriptedLog log = new ScriptedLog();
        TopicPartition changelog = new TopicPartition("shadow-customer-state-changelog", 0);
        log.logEnd.put(changelog, 479L);
        log.lastStable.put(changelog, 12L);

        assertThatThrownBy(() -> Groups.settledEnds(log, List.of(changelog.topic()), Duration.ofMillis(100), Duration.ofMillis(1)))
                .isInstanceOf(Endpoints.EnvironmentException.class).hasMessageContaining("stayed open");
    }

    @Test
    void livePastTheCutNamesEachPartitionWhereItHadCommittedFurther() {
        TopicPartition other = new TopicPartition("orders", 1);
        Cut cut = new Cut(Map.of(INPUT, 500L, other, 40L), Map.of(INPUT, 0L, other, 0L));

        assertThat(Groups.pastCut(Map.of(INPUT, 500L, other, 40L), cut)).isEmpty();
        assertThat(Groups.pastCut(Map.of(INPUT, 512L, other, 40L, new TopicPartition("elsewhere", 0), 9L), cut))
                .containsExactly(Map.entry("orders-0", 512L));
        assertThat(Groups.pastCut(Map.of(other, 41L), cut)).containsExactly(Map.entry("orders-1", 41L));
    }
}
