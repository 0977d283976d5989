package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.state.CepFact;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A pattern over one subject's events (a card, a customer, a parcel, a vehicle), in two parts: what it needs of an
 * event ({@link #factOf}: a few fields, or nothing when the event cannot take part in an occurrence; {@link #keeps}
 * filters by the current thresholds), and a pure function of the subject's retained facts ({@link #find}). The
 * CEP library path's reconciliation ({@link LateReconciler}) re-runs the function over the retained facts when a late
 * one arrives, so the final alerts do not depend on the order in which events arrived.
 *
 * @param <E> the event type on the subject's stream
 */
public interface SubjectPattern<E> extends Serializable {

    PatternSettings.Kind kind();

    Envelope envelope(E event);

    /** The subject the event is about: the key of the pattern's state (card token, customer, parcel, vehicle). */
    String subject(E event);

    /**
     * What this pattern needs of the event, or empty when the event can never take part in an occurrence (an online
     * payment for impossible travel, a scan other than out-for-delivery or delivered, ...). It runs before the keyed
     * exchange, so only these few fields cross the network and an event no pattern uses goes no further.
     */
    Optional<CepFact> factOf(E event);

    /**
     * Whether the pattern keeps the fact under these settings (a mid-size payment cannot be part of a card test): a
     * fact not kept touches neither state nor timers. A threshold changed at runtime therefore classifies the facts
     * that arrive after it.
     */
    default boolean keeps(CepFact fact, PatternSettings settings) {
        return true;
    }

    /**
     * Every occurrence in the facts.
     *
     * @param facts       the subject's retained facts in event-time order (ties by event id), all at or before the
     *                    evaluation horizon
     * @param timeReached how far event time has certainly progressed, for patterns about something that did not happen
     *                    in time; {@code null} when that is unknown (the input ended): nothing then times out
     */
    List<Finding> find(String subject, List<CepFact> facts, PatternSettings settings, Instant timeReached);

    /** How long before the horizon facts are kept. Occurrences must fit in {@code retention - guard}. */
    Duration retention(PatternSettings settings);

    /**
     * How far into the retained history an occurrence must start to be trusted: one starting earlier may be a fragment
     * of an occurrence whose beginning was already dropped, and is not reported.
     */
    Duration guard(PatternSettings settings);

    int version(PatternSettings settings);

    boolean enabled(PatternSettings settings);

    /** An event time at which the pattern must be evaluated even if no event arrives (a time-out), if any. */
    default Optional<Instant> deadline(CepFact fact, PatternSettings settings) {
        return Optional.empty();
    }

    /**
     * The topic the fact's event was read from, given the topic of the pattern's anchor events: that one, unless the
     * pattern reads more than one topic.
     */
    default String topicOf(CepFact fact, String anchorTopic) {
        return anchorTopic;
    }

    /** A fact of the event with its id and time, for a pattern to fill in. */
    static CepFact.Builder fact(Envelope e, String kind) {
        return CepFact.newBuilder().setEventId(e.getEventId()).setOccurredAtMs(e.getOccurredAt().toEpochMilli())
                .setKind(kind);
    }

    static Instant at(CepFact fact) {
        return Instant.ofEpochMilli(fact.getOccurredAtMs());
    }
}
