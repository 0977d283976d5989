package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Envelope;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A pattern over one subject's events (a card, a customer, a parcel, a vehicle), as a pure function of the subject's
 * history: the matcher re-runs it whenever the history changes, so an on-time event and a late one are treated the
 * same way, and the result does not depend on the order in which events arrived.
 *
 * @param <E> the event type on the subject's stream
 */
public interface SubjectPattern<E> extends Serializable {

    PatternSettings.Kind kind();

    Envelope envelope(E event);

    /**
     * Every occurrence in the history.
     *
     * @param history     the subject's retained events in event-time order (ties by event id), all at or before the
     *                    evaluation horizon
     * @param timeReached how far event time has certainly progressed, for patterns about something that did not happen
     *                    in time; {@code null} when that is unknown (the input ended): nothing then times out
     */
    List<Finding> find(String subject, List<E> history, PatternSettings settings, Instant timeReached);

    /** How long before the horizon events are kept. Occurrences must fit in {@code retention - guard}. */
    Duration retention(PatternSettings settings);

    /**
     * How far into the retained history an occurrence must start to be trusted: one starting earlier may be a fragment
     * of an occurrence whose beginning was already dropped, and is not reported.
     */
    Duration guard(PatternSettings settings);

    int version(PatternSettings settings);

    boolean enabled(PatternSettings settings);

    /** An event time at which the pattern must be evaluated even if no event arrives (a time-out), if any. */
    default Optional<Instant> deadline(E event, PatternSettings settings) {
        return Optional.empty();
    }

    static Instant occurredAt(Envelope e) {
        return e.getOccurredAt();
    }
}
