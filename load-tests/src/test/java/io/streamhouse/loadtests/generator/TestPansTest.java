package io.streamhouse.loadtests.generator;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPansTest {
    @Test
    void panIsSixteenLuhnValidDigitsInTheTestRangeAndDistinctPerCard() {
        Set<String> pans = new HashSet<>();
        for (int i = 0; i < 5_000; i++) {
            String pan = TestPans.pan(42, i);
            assertThat(pan).hasSize(16).startsWith("400000042");
            assertThat(TestPans.luhnValid(pan)).as(pan).isTrue();
            pans.add(pan);
        }
        assertThat(pans).hasSize(5_000);
        assertThat(TestPans.pan(-1, 7)).startsWith("400000999");
    }

    @Test
    void luhnCheckAgreesWithKnownTestNumbers() {
        assertThat(TestPans.luhnValid("4111111111111111")).isTrue();
        assertThat(TestPans.luhnValid("5555555555554444")).isTrue();
        assertThat(TestPans.luhnValid("4111111111111112")).isFalse();
        assertThatThrownBy(() -> TestPans.pan(1, TestPans.MAX_CARDS)).isInstanceOf(IllegalArgumentException.class);
    }
}
