package io.streamhouse.replay;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SideBySideTest {

    @Test
    void jobsRunSideBySideAndTheirResultsKeepTheJobsOrder() throws Exception {
        // Each waits for the other: only side by side do both finish.
        CountDownLatch a = new CountDownLatch(1), b = new CountDownLatch(1);
        Callable<String> first = () -> {
            a.countDown();
            return b.await(10, TimeUnit.SECONDS) ? "first" : "first alone";
        };
        Callable<String> second = () -> {
            b.countDown();
            return a.await(10, TimeUnit.SECONDS) ? "second" : "second alone";
        };
        assertThat(SideBySide.run("test", List.of(first, second))).containsExactly("first", "second");
    }

    @Test
    void aFailureIsThrownAsItWasOnceEveryJobHasEnded() {
        AtomicBoolean slowEnded = new AtomicBoolean();
        CountDownLatch failed = new CountDownLatch(1);
        Callable<String> slow = () -> {
            failed.await(10, TimeUnit.SECONDS);
            slowEnded.set(true);
            return "slow";
        };
        Callable<String> failing = () -> {
            failed.countDown();
            throw new Endpoints.EnvironmentException("the live application has not reached the cut");
        };
        assertThatThrownBy(() -> SideBySide.run("test", List.of(slow, failing)))
                .isInstanceOf(Endpoints.EnvironmentException.class).hasMessageContaining("has not reached the cut");
        assertThat(slowEnded).as("the other job ran to its end before the failure was thrown").isTrue();
    }
}
