package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.SubjectKind;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One occurrence of a pattern: planted by the generator (ground truth) or found by the checker. Types and subject
 * kinds are the ones an {@code Alert} carries, so a detector's alerts compare directly.
 *
 * @param eventIds   the events that constitute it, in event-time order
 * @param parameters the rule parameters it was planted or found with, plus facts of this occurrence
 */
public record Anomaly(AlertType type, SubjectKind subjectKind, String subjectId, List<String> eventIds,
                      Instant windowStart, Instant windowEnd, Map<String, String> parameters) {
    public Anomaly {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(subjectKind, "subjectKind");
        Objects.requireNonNull(subjectId, "subjectId");
        eventIds = List.copyOf(eventIds);
        Objects.requireNonNull(windowStart, "windowStart");
        Objects.requireNonNull(windowEnd, "windowEnd");
        parameters = Map.copyOf(parameters);
        if (eventIds.isEmpty()) {
            throw new IllegalArgumentException("an anomaly consists of at least one event");
        }
        if (windowEnd.isBefore(windowStart)) {
            throw new IllegalArgumentException("windowEnd before windowStart");
        }
    }

    /** What identifies an occurrence regardless of who recorded it: type, subject, events and window. */
    public String identity() {
        return type + "|" + subjectKind + ":" + subjectId + "|" + String.join(",", eventIds.stream().sorted().toList())
                + "|" + windowStart.toEpochMilli() + "-" + windowEnd.toEpochMilli();
    }
}
