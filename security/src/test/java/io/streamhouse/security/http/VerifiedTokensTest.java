package io.streamhouse.security.http;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class VerifiedTokensTest {
    private final AtomicLong now = new AtomicLong(1_000);

    @Test
    void aVerifiedTokenIsRememberedStrictlyUntilItsDeadline() {
        var tokens = new VerifiedTokens<String>(10, now::get);
        tokens.put("a.b.c", "alice", 1_060);

        now.set(1_059);
        assertThat(tokens.get("a.b.c")).isEqualTo("alice");
        assertThat(tokens.get("a.b.d")).as("another signature is another token").isNull();
        now.set(1_060);
        assertThat(tokens.get("a.b.c")).as("at its deadline it must be verified again").isNull();
        now.set(1_000);
        assertThat(tokens.get("a.b.c")).as("and it is forgotten, not kept for a clock that goes back").isNull();
    }

    @Test
    void aTokenWithoutADeadlineOrPastItIsNotRemembered() {
        var tokens = new VerifiedTokens<String>(10, now::get);
        tokens.put("no-exp", "x", VerifiedTokens.deadline(0, 900, null));
        tokens.put("expired", "y", 1_000);
        assertThat(tokens.get("no-exp")).isNull();
        assertThat(tokens.get("expired")).isNull();
        assertThat(tokens.size()).isZero();
    }

    @Test
    void theMaximumTokenAgeShortensTheDeadline() {
        assertThat(VerifiedTokens.deadline(5_000, 1_000, null)).isEqualTo(5_000);
        assertThat(VerifiedTokens.deadline(5_000, 1_000, 600L)).isEqualTo(1_600);
        assertThat(VerifiedTokens.deadline(5_000, 1_000, 9_000L)).isEqualTo(5_000);
    }

    @Test
    void whenFullTheExpiredGoAndOtherwiseNothingMoreIsRemembered() {
        var tokens = new VerifiedTokens<String>(2, now::get);
        tokens.put("t1", "1", 1_010);
        tokens.put("t2", "2", 1_100);
        tokens.put("t3", "3", 1_100);
        assertThat(tokens.get("t3")).as("full, none expired: not remembered").isNull();
        assertThat(tokens.get("t1")).isEqualTo("1");

        now.set(1_020);
        tokens.put("t3", "3", 1_100);
        assertThat(tokens.get("t3")).as("t1 had expired and made room").isEqualTo("3");
        assertThat(tokens.get("t2")).isEqualTo("2");
        assertThat(tokens.size()).isEqualTo(2);
    }
}
