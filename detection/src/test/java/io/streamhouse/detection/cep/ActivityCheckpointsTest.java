package io.streamhouse.detection.cep;

import io.streamhouse.detection.cep.ActivityCheckpoints.Step;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class ActivityCheckpointsTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private static final long ROUND = ActivityCheckpoints.ROUND.toNanos();

    /** Records each request; answers each outcome from a queue (empty: still running). */
    static final class FakeFlink implements ActivityCheckpoints.Checkpointer {
        final List<Long> requestedAt = new ArrayList<>();
        final Deque<Optional<Boolean>> outcomes = new ArrayDeque<>();
        boolean refuse;
        long now;

        @Override
        public String request() throws IOException {
            if (refuse) {
                throw new IOException("connection refused");
            }
            requestedAt.add(now);
            return "request-" + requestedAt.size();
        }

        @Override
        public Optional<Boolean> outcome(String requestId) {
            return outcomes.isEmpty() ? Optional.empty() : outcomes.poll();
        }
    }

    private final FakeFlink flink = new FakeFlink();
    private final ActivityCheckpoints checkpoints = new ActivityCheckpoints(Duration.ofSeconds(1), flink);

    private Step at(long nanos, long total) throws InterruptedException {
        flink.now = nanos;
        return checkpoints.round(nanos, total);
    }

    @Test
    void anIdleJobIsNeverCheckpointedByIt() throws InterruptedException {
        for (long t = 0; t < 3_600 * SECOND; t += ROUND) {
            assertThat(at(t, 0)).isEqualTo(Step.NOTHING);
        }
        assertThat(flink.requestedAt).isEmpty();
    }

    @Test
    void theFirstRecordAfterAQuietSpellIsCheckpointedAtOnceAndThenNoMoreWhileNothingMoves() throws InterruptedException {
        at(0, 0);
        assertThat(at(600 * SECOND, 5)).isEqualTo(Step.REQUESTED);
        assertThat(at(600 * SECOND + ROUND, 5)).isEqualTo(Step.WAITING);
        flink.outcomes.add(Optional.of(true));
        assertThat(at(600 * SECOND + 2 * ROUND, 5)).isEqualTo(Step.COMPLETED);
        for (long t = 601 * SECOND; t < 1_200 * SECOND; t += ROUND) {
            assertThat(at(t, 5)).isEqualTo(Step.NOTHING);
        }
        assertThat(flink.requestedAt).containsExactly(600 * SECOND);
    }

    @Test
    void whileRecordsFlowACheckpointIsAskedOncePerSpacing() throws InterruptedException {
        long total = 0;
        for (long t = 0; t < 10 * SECOND; t += ROUND) {
            total += 100;
            if (at(t, total) == Step.WAITING) {
                flink.outcomes.add(Optional.of(true)); // completes at the next round
            }
        }
        assertThat(flink.requestedAt).hasSize(10);
        for (int i = 1; i < flink.requestedAt.size(); i++) {
            assertThat(flink.requestedAt.get(i) - flink.requestedAt.get(i - 1)).isGreaterThanOrEqualTo(SECOND);
        }
    }

    @Test
    void recordsThatMovedWhileACheckpointRanAreCheckpointedByTheNextOne() throws InterruptedException {
        at(0, 10);
        flink.outcomes.add(Optional.of(true));
        at(ROUND, 12); // completes the checkpoint asked at 10; 2 more records moved meanwhile
        assertThat(at(2 * ROUND, 12)).isEqualTo(Step.NOTHING); // within the spacing
        assertThat(at(SECOND, 12)).isEqualTo(Step.REQUESTED);
    }

    @Test
    void aFailedCheckpointIsAskedAgainAfterTheSpacingThoughNothingMoved() throws InterruptedException {
        at(0, 7);
        flink.outcomes.add(Optional.of(false));
        assertThat(at(ROUND, 7)).isEqualTo(Step.FAILED);
        assertThat(at(2 * ROUND, 7)).isEqualTo(Step.NOTHING);
        assertThat(at(SECOND, 7)).isEqualTo(Step.REQUESTED);
    }

    @Test
    void aRequestTheApiRefusesIsAskedAgainAfterTheSpacing() throws InterruptedException {
        flink.refuse = true;
        assertThat(at(0, 3)).isEqualTo(Step.FAILED);
        assertThat(checkpoints.lastError()).contains("connection refused");
        flink.refuse = false;
        assertThat(at(ROUND, 3)).isEqualTo(Step.NOTHING);
        assertThat(at(SECOND, 3)).isEqualTo(Step.REQUESTED);
    }

    @Test
    void countersThatWentDownAfterARestartAreMovement() throws InterruptedException {
        at(0, 50);
        flink.outcomes.add(Optional.of(true));
        at(ROUND, 50);
        assertThat(at(2 * SECOND, 0)).isEqualTo(Step.REQUESTED);
    }
}
