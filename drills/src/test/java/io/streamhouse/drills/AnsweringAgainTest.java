package io.streamhouse.drills;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AnsweringAgainTest {
    private static final long FAULT = 10_000, DOWN = 12_000;
    private static final String KILLED = "127.0.0.1:28082", SURVIVOR = "127.0.0.1:28083";

    private static AnsweringAgain.Poll ok(long sent, boolean stale, String by) {
        return new AnsweringAgain.Poll(sent, sent + 20, 200, stale, by);
    }

    private static AnsweringAgain.Poll failed(long sent, int status) {
        return new AnsweringAgain.Poll(sent, sent + 5, status, false, null);
    }

    @Test
    void aLookupSentBeforeTheInstanceWasDownDoesNotCount() {
        var r = AnsweringAgain.summarize(List.of(ok(10_100, false, KILLED), failed(12_000, 503), failed(12_100, 0),
                ok(12_200, true, SURVIVOR), ok(22_000, false, SURVIVOR)), FAULT, DOWN);

        assertThat(r.answeringAgainAfterMs()).isEqualTo(2_220);
        assertThat(r.staleAtFirst()).isTrue();
        assertThat(r.servedByAtFirst()).isEqualTo(SURVIVOR);
        assertThat(r.freshAgainAfterMs()).isEqualTo(12_020);
        assertThat(r.servedByWhenFresh()).isEqualTo(SURVIVOR);
        assertThat(r.lookupsAfterDown()).isEqualTo(4);
        assertThat(r.notAnsweredAfterDown()).isEqualTo(2);
    }

    @Test
    void neverAnsweredOnceDownHasNoFigure() {
        var r = AnsweringAgain.summarize(List.of(ok(10_100, false, KILLED), failed(12_500, 503), failed(12_600, 0)), FAULT, DOWN);

        assertThat(r.answeringAgainAfterMs()).isNull();
        assertThat(r.staleAtFirst()).isNull();
        assertThat(r.freshAgainAfterMs()).isNull();
        assertThat(r.notAnsweredAfterDown()).isEqualTo(2);
    }

    @Test
    void aFreshFirstAnswerIsBothFigures() {
        var r = AnsweringAgain.summarize(List.of(ok(12_000, false, SURVIVOR)), FAULT, DOWN);

        assertThat(r.answeringAgainAfterMs()).isEqualTo(2_020);
        assertThat(r.staleAtFirst()).isFalse();
        assertThat(r.freshAgainAfterMs()).isEqualTo(2_020);
        assertThat(r.notAnsweredAfterDown()).isZero();
    }
}
