package io.streamhouse.domain.testdata;

import java.time.Duration;
import java.time.Instant;

/** Shared instants for tests: everything happens relative to {@link #T0}. */
public final class Times {
    public static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    public static final Duration ONE_SECOND = Duration.ofSeconds(1);
    public static final Duration ONE_MINUTE = Duration.ofMinutes(1);
    public static final Duration ONE_HOUR = Duration.ofHours(1);

    private Times() {
    }
}
