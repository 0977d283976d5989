package io.streamhouse.replay;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.testdata.SampleEvents;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/** Which alerts the CEP comparison counts as settled at the cut, and how a difference is named. */
class AlertVerifyTest {
    /** Card testing settled up to T0 + 1 min; events e1..e4 before the cut, e1..e3 at T0, e4 at T0 + 1 min. */
    private static final AlertVerify.Input INPUT = new AlertVerify.Input(4,
            Map.of("e1", T0, "e2", T0, "e3", T0, "e4", T0.plus(ONE_MINUTE)),
            Map.of(AlertType.CARD_TESTING, T0.plus(ONE_MINUTE)), Map.of());

    private static Alert alert() {
        return (Alert) SampleEvents.oneOfEach().stream().filter(Alert.class::isInstance).findFirst().orElseThrow();
    }

    @Test
    void anAlertIsSettledWhenItAndEveryMatchedEventAreAtOrBeforeItsPatternsHorizon() {
        Alert a = alert(); // card testing, events e1..e4, window end T0 + 1 min
        assertThat(AlertVerify.settled(a, INPUT)).isTrue();

        assertThat(AlertVerify.settled(Alert.newBuilder(a).setWindowEnd(T0.plus(ONE_MINUTE).plusMillis(1)).build(), INPUT))
                .as("fires after the horizon (a deadline live's watermark has not passed)").isFalse();
        assertThat(AlertVerify.settled(Alert.newBuilder(a).setMatchedEventIds(List.of("e1", "after-cut")).build(), INPUT))
                .as("caused by an event after the cut").isFalse();
        assertThat(AlertVerify.settled(Alert.newBuilder(a).setType(AlertType.PARCEL_SLA_BREACH).build(), INPUT))
                .as("a pattern whose inputs were empty before the cut").isFalse();
        var later = new AlertVerify.Input(4, Map.of("e1", T0, "e2", T0, "e3", T0, "e4", T0.plus(ONE_MINUTE).plusMillis(1)),
                INPUT.horizons(), Map.of());
        assertThat(AlertVerify.settled(a, later)).as("a matched event live has not evaluated yet").isFalse();
    }

    @Test
    void aDifferenceNamesTheFieldsIncludingTheEnvelopes() {
        Alert a = alert();
        Alert b = Alert.newBuilder(a).setSeverity(io.streamhouse.domain.event.Severity.LOW)
                .setEnvelope(io.streamhouse.domain.event.Envelope.newBuilder(a.getEnvelope()).setRecordedAt(Instant.EPOCH).build())
                .build();
        assertThat(AlertVerify.differingFields(a, b)).containsExactly("envelope.recordedAt", "severity");
        assertThat(AlertVerify.differingFields(a, Alert.newBuilder(a).build())).isEmpty();
    }
}
