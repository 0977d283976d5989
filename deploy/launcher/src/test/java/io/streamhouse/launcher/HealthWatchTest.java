package io.streamhouse.launcher;

import io.streamhouse.control.HealthCheck;
import io.streamhouse.control.HealthCheck.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which findings the launcher prints, and how they count in {@code status}'s exit code. */
class HealthWatchTest {
    private static final Instant T = Instant.parse("2026-12-04T10:00:00Z");

    private static HealthCheck cep(Verdict verdict, String line) {
        return new HealthCheck("cep job", "cep", verdict, line);
    }

    @Test
    void aCheckTurningFailingIsAnnouncedAndSoIsItsRecovery() {
        HealthCheck failing = cep(Verdict.FAILING, "cep job failing: RESTARTING, 5 restarts in the last minute (5 in all), last cause: X");
        assertThat(HealthWatch.announcement(Verdict.OK, "cep job: RUNNING, 0 restarts", Instant.EPOCH, failing, T))
                .contains(failing.line());
        assertThat(HealthWatch.announcement(null, null, null, failing, T)).as("failing at the first look").contains(failing.line());

        HealthCheck recovered = cep(Verdict.OK, "cep job: RUNNING, 5 restarts, last cause: X");
        assertThat(HealthWatch.announcement(Verdict.FAILING, failing.line(), T, recovered, T.plusSeconds(700))).contains(recovered.line());
    }

    @Test
    void aCheckStillFailingIsAnnouncedAgainOnlyAfterAMinuteAndOnlyIfItsLineChanged() {
        String first = "cep job failing: RESTARTING, 5 restarts in the last minute (5 in all), last cause: X";
        HealthCheck more = cep(Verdict.FAILING, "cep job failing: RESTARTING, 7 restarts in the last minute (7 in all), last cause: X");
        assertThat(HealthWatch.announcement(Verdict.FAILING, first, T, more, T.plusSeconds(30))).isEmpty();
        assertThat(HealthWatch.announcement(Verdict.FAILING, first, T, more, T.plusSeconds(60))).contains(more.line());
        assertThat(HealthWatch.announcement(Verdict.FAILING, first, T, cep(Verdict.FAILING, first), T.plusSeconds(600))).isEmpty();
    }

    @Test
    void okAndUnknownAreNotAnnounced() {
        assertThat(HealthWatch.announcement(null, null, null, cep(Verdict.OK, "cep job: RUNNING, 0 restarts"), T)).isEmpty();
        assertThat(HealthWatch.announcement(Verdict.FAILING, "x", T, cep(Verdict.UNKNOWN, "cep job: not asked"), T)).isEmpty();
    }

    @Test
    void aFailingCheckExitsFourAndADegradedOneNeverZero() {
        List<HealthCheck> failing = List.of(cep(Verdict.FAILING, "f"), new HealthCheck("connect lake", "connect", Verdict.OK, "ok"));
        assertThat(HealthWatch.exitCode(0, failing)).isEqualTo(4);
        assertThat(HealthWatch.exitCode(0, List.of(cep(Verdict.DEGRADED, "d")))).isEqualTo(1);
        assertThat(HealthWatch.exitCode(4, List.of(cep(Verdict.DEGRADED, "d")))).isEqualTo(4);
        assertThat(HealthWatch.exitCode(0, List.of(cep(Verdict.UNKNOWN, "u"), cep(Verdict.OK, "o")))).isZero();
        assertThat(HealthWatch.worst(failing, "cep")).contains(Verdict.FAILING);
        assertThat(HealthWatch.worst(failing, "connect")).isEmpty();
    }
}
