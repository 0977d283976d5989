package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.SubjectKind;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One occurrence of a pattern in one subject's history.
 *
 * @param anchorEventId the event whose fact records the alert reported for this occurrence (the large authorization of
 *                      a card test, the out-for-delivery scan of a parcel, the first reading of a run, ...). A late
 *                      event may change an occurrence's events and even its anchor (a run's new first reading): the
 *                      reconciliation finds the alert it revises by shared events, not by anchor
 * @param eventIds      the events that constitute it, in event-time order
 * @param facts         values of this occurrence (distance, readings, outcome, ...)
 */
public record Finding(String anchorEventId, AlertType type, SubjectKind subjectKind, String subjectId,
                      List<String> eventIds, Instant windowStart, Instant windowEnd, Map<String, String> facts) {
    public Finding {
        Objects.requireNonNull(anchorEventId, "anchorEventId");
        eventIds = List.copyOf(eventIds);
        facts = Map.copyOf(facts);
        if (eventIds.isEmpty() || windowEnd.isBefore(windowStart)) {
            throw new IllegalArgumentException("a finding has events and windowStart <= windowEnd");
        }
    }

    /** Type, subject, events and window: equal identities are the same occurrence (as the generator's checker counts). */
    public String identity() {
        return type + "|" + subjectKind + ":" + subjectId + "|" + String.join(",", eventIds.stream().sorted().toList())
                + "|" + windowStart.toEpochMilli() + "-" + windowEnd.toEpochMilli();
    }
}
