package io.streamhouse.ingest.intake;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InFlightLimiterTest {

    @Test
    void refusesAtOnceWhenFullAndFreesEachPermitOnceWhenItsWriteIsAnswered() {
        var limiter = new InFlightLimiter(3);
        var batch = limiter.tryAcquire(2).orElseThrow();
        assertThat(limiter.tryAcquire(2)).as("only one left").isEmpty();
        var single = limiter.tryAcquire(1).orElseThrow();
        assertThat(limiter.available()).isZero();

        batch.releaseOne();
        assertThat(limiter.available()).isEqualTo(1);
        batch.releaseAll();
        batch.releaseAll();
        batch.releaseOne();
        assertThat(limiter.available()).as("released twice counts once").isEqualTo(2);
        single.releaseOne();
        assertThat(limiter.available()).isEqualTo(3);
    }

    @Test
    void aRequestLargerThanTheBoundIsAConfigurationErrorNotA429() {
        var limiter = new InFlightLimiter(3);
        assertThatThrownBy(() -> limiter.tryAcquire(4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InFlightLimiter(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void noPermitsReleaseNothing() {
        InFlightLimiter.Permits.NONE.releaseOne();
        InFlightLimiter.Permits.NONE.releaseAll();
        assertThat(new InFlightLimiter(2).available()).isEqualTo(2);
    }
}
