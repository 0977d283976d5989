package io.streamhouse.supervisor;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RestartPolicyTest {

    @Test
    void backoffDoublesUpToItsCeiling() {
        RestartPolicy policy = RestartPolicy.LAUNCHER;
        assertThat(List.of(1, 2, 3, 4, 5, 6, 7).stream().map(policy::backoff).map(java.time.Duration::toSeconds).toList())
                .containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L);
    }
}
