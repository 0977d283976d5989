package io.streamhouse.security;

import io.streamhouse.security.http.TokenBuckets;
import io.streamhouse.security.http.TokenBuckets.Limit;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TokenBucketsTest {
    private final AtomicLong now = new AtomicLong();

    @Test
    void aCallerGetsItsBurstThenItsRateAndOtherCallersAreNotAffected() {
        var buckets = new TokenBuckets(new Limit(2, 3), Map.of(), now::get);
        for (int i = 0; i < 3; i++) {
            assertThat(buckets.tryAcquire("a")).as("request %d of the burst", i).isTrue();
        }
        assertThat(buckets.tryAcquire("a")).isFalse();
        assertThat(buckets.tryAcquire("b")).isTrue();
        now.addAndGet(500_000_000L); // half a second at 2/s: one request back
        assertThat(buckets.tryAcquire("a")).isTrue();
        assertThat(buckets.tryAcquire("a")).isFalse();
        now.addAndGet(60_000_000_000L); // a minute: refilled to the burst, not beyond
        for (int i = 0; i < 3; i++) {
            assertThat(buckets.tryAcquire("a")).isTrue();
        }
        assertThat(buckets.tryAcquire("a")).isFalse();
    }

    @Test
    void overridesGiveACallerItsOwnLimit() {
        var buckets = new TokenBuckets(new Limit(1000, 2000), TokenBuckets.parseOverrides("slow:0.5:1, fast:10:20"), now::get);
        assertThat(buckets.tryAcquire("slow")).isTrue();
        assertThat(buckets.tryAcquire("slow")).isFalse();
        assertThat(buckets.limitOf("slow").retryAfterSeconds()).isEqualTo(2);
        assertThat(buckets.limitOf("fast")).isEqualTo(new Limit(10, 20));
        assertThat(buckets.limitOf("anyone")).isEqualTo(new Limit(1000, 2000));
    }

    @Test
    void aMalformedOverrideNamesItself() {
        assertThatThrownBy(() -> TokenBuckets.parseOverrides("ok:1:1,broken:x"))
                .hasMessageContaining("'broken:x'");
        assertThatThrownBy(() -> TokenBuckets.parseOverrides("zero:0:1")).hasMessageContaining("'zero:0:1'");
    }
}
