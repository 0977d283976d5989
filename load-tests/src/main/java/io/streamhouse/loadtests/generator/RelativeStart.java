package io.streamhouse.loadtests.generator;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;

/**
 * The default start of a run sent to a running stack: early enough that its whole event time — parcel and order
 * follow-ups reach hours past the last activity — ends a margin before now. A stack's CEP job stamps an alert with its
 * window end, and the broker refuses records more than an hour ahead of its clock; a fixed date months back puts every
 * event behind the watermark of a stack that has already seen today's events. The span is measured on the run itself:
 * every event time is an offset from the start, so a run generated at one start and at another differ by the shift only.
 * The file target keeps its fixed default, so the same seed still gives the same bytes.
 */
public final class RelativeStart {
    /** Between the run's last event time and now: the run is in the past however long generation takes. */
    public static final Duration MARGIN = Duration.ofMinutes(1);

    /** From the configured start to the latest event time of the run (the same at every start). */
    public static Duration span(Generation g) {
        Instant last = g.events().stream().map(GeneratedEvent::occurredAt).max(Comparator.naturalOrder())
                .orElse(g.config().start());
        return Duration.between(g.config().start(), last);
    }

    /** The start, in whole seconds, whose run of {@code span} ends at least {@code margin} before {@code now}. */
    public static Instant endingBefore(Instant now, Duration span, Duration margin) {
        return now.minus(span).minus(margin).truncatedTo(ChronoUnit.SECONDS);
    }

    /** Generates {@code config} shifted so that it ends {@link #MARGIN} before {@code now} (generates twice: span, then run). */
    public static Generation generateEndingBefore(GeneratorConfig config, Instant now) {
        Duration span = span(Generator.generate(config));
        return Generator.generate(config.withStart(endingBefore(now, span, MARGIN)));
    }

    private RelativeStart() {
    }
}
