package io.streamhouse.drills;

import java.util.List;

/** What a {@link Check} found, and its failures in the report's words (none: it passed). */
record CheckResult<T>(T found, List<String> failures) {
    CheckResult {
        failures = List.copyOf(failures);
    }

    static <T> CheckResult<T> passed(T found) {
        return new CheckResult<>(found, List.of());
    }

    static <T> CheckResult<T> failedIf(boolean failed, T found, String failure) {
        return new CheckResult<>(found, failed ? List.of(failure) : List.of());
    }
}
