package io.streamhouse.loadtests.generator;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;

import static org.assertj.core.api.Assertions.assertThat;

class RelativeStartTest {
    static final Instant NOW = Instant.parse("2026-12-04T21:37:12.345Z");

    static Instant lastEventTime(Generation g) {
        return g.events().stream().map(GeneratedEvent::occurredAt).max(Comparator.naturalOrder()).orElseThrow();
    }

    @Test
    void aRunEndsAMarginBeforeNowFollowUpsIncluded() {
        GeneratorConfig config = GeneratorConfig.defaults(11, 5_000);

        Generation g = RelativeStart.generateEndingBefore(config, NOW);

        Instant last = lastEventTime(g);
        assertThat(last).isBefore(NOW.minus(RelativeStart.MARGIN).plusMillis(1))
                .isAfter(NOW.minus(RelativeStart.MARGIN).minusSeconds(1));
        // Follow-ups reach hours past the last activity: the span is measured, not the events times the mean gap.
        assertThat(Duration.between(g.config().start(), last))
                .isGreaterThan(config.meanGap().multipliedBy(config.events()).plusHours(1));
    }

    @Test
    void theSpanIsTheSameAtEveryStartSoMeasuringItOnceIsEnough() {
        GeneratorConfig config = GeneratorConfig.defaults(3, 3_000);
        Generation a = Generator.generate(config);
        Generation b = Generator.generate(config.withStart(Instant.parse("2026-11-30T17:05:09Z")));

        assertThat(RelativeStart.span(a)).isEqualTo(RelativeStart.span(b));
        Duration shift = Duration.between(a.config().start(), b.config().start());
        for (int i = 0; i < a.events().size(); i++) {
            assertThat(b.events().get(i).occurredAt()).isEqualTo(a.events().get(i).occurredAt().plus(shift));
            assertThat(b.events().get(i).eventId()).isEqualTo(a.events().get(i).eventId());
        }
    }

    @Test
    void theStartIsInWholeSeconds() {
        assertThat(RelativeStart.endingBefore(NOW, Duration.ofMinutes(90), Duration.ofMinutes(1)))
                .isEqualTo(Instant.parse("2026-12-04T20:06:12Z"));
    }
}
