package io.streamhouse.ingest.intake;

import io.streamhouse.ingest.kafka.Accepted;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.ExecutionException;

import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AcceptedEventsTest {
    static final byte[] CONTENT = {1, 2, 3};
    static final byte[] OTHER_CONTENT = {1, 2, 4};

    /** A clock the test moves by hand. */
    static final class HandClock extends Clock {
        Instant now = T0;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    final HandClock clock = new HandClock();
    final AcceptedEvents accepted = new AcceptedEvents(clock, Duration.ofMinutes(10), 3);

    static Accepted at(String eventId, long offset) {
        return new Accepted("v-1", eventId, "fleet.vehicles.telemetry", 2, offset, false);
    }

    @Test
    void aRepeatGetsTheOriginalPositionAndADifferentEventUnderTheSameIdIsAConflict() throws Exception {
        assertThat(accepted.claim("e-1", CONTENT)).isInstanceOf(AcceptedEvents.Fresh.class);
        accepted.accepted("e-1", at("e-1", 41));

        var repeat = accepted.claim("e-1", CONTENT.clone());
        assertThat(repeat).isInstanceOf(AcceptedEvents.Seen.class);
        assertThat(((AcceptedEvents.Seen) repeat).original().get()).isEqualTo(at("e-1", 41));
        assertThat(accepted.claim("e-1", OTHER_CONTENT)).isInstanceOf(AcceptedEvents.Conflict.class);
    }

    @Test
    void aRepeatWhileTheFirstWriteIsInFlightWaitsForItInsteadOfWritingAgain() throws Exception {
        accepted.claim("e-1", CONTENT);
        var repeat = (AcceptedEvents.Seen) accepted.claim("e-1", CONTENT);
        assertThat(repeat.original()).isNotDone();

        accepted.accepted("e-1", at("e-1", 7));
        assertThat(repeat.original().get().offset()).isEqualTo(7);
    }

    @Test
    void aFailedWriteIsForgottenSoTheRetryWritesIt() {
        accepted.claim("e-1", CONTENT);
        var waiting = (AcceptedEvents.Seen) accepted.claim("e-1", CONTENT);
        accepted.failed("e-1", new IllegalStateException("broker down"));

        assertThatThrownBy(() -> waiting.original().get()).isInstanceOf(ExecutionException.class).hasMessageContaining("broker down");
        assertThat(accepted.claim("e-1", CONTENT)).isInstanceOf(AcceptedEvents.Fresh.class);
    }

    @Test
    void anAcceptedEventIsNotForgottenByALateFailureReport() {
        accepted.claim("e-1", CONTENT);
        accepted.accepted("e-1", at("e-1", 1));
        accepted.failed("e-1", new IllegalStateException("late"));
        assertThat(accepted.claim("e-1", CONTENT)).isInstanceOf(AcceptedEvents.Seen.class);
    }

    @Test
    void entriesExpireAfterTheWindow() {
        accepted.claim("e-1", CONTENT);
        accepted.accepted("e-1", at("e-1", 1));

        clock.now = T0.plus(Duration.ofMinutes(10));
        assertThat(accepted.claim("e-1", CONTENT)).as("still inside the window").isInstanceOf(AcceptedEvents.Seen.class);
        clock.now = T0.plus(Duration.ofMinutes(10)).plus(ONE_MINUTE);
        assertThat(accepted.claim("e-1", CONTENT)).as("after the window").isInstanceOf(AcceptedEvents.Fresh.class);
    }

    @Test
    void theOldestAcceptedAreForgottenBeyondTheSizeBoundButNeverOneStillInFlight() {
        accepted.claim("in-flight", CONTENT);
        for (String id : new String[]{"e-1", "e-2", "e-3"}) {
            accepted.claim(id, CONTENT);
            accepted.accepted(id, at(id, 1));
        }
        assertThat(accepted.size()).as("the oldest is in flight, so nothing behind it is evicted yet").isEqualTo(4);

        accepted.accepted("in-flight", at("in-flight", 2));
        accepted.claim("e-4", CONTENT);
        assertThat(accepted.size()).isEqualTo(3);
        assertThat(accepted.claim("in-flight", CONTENT)).as("evicted, oldest").isInstanceOf(AcceptedEvents.Fresh.class);
    }
}
