package io.streamhouse.domain.decision;

import io.streamhouse.domain.detection.AlertsInEffect;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.state.FraudAlertHistory;
import io.streamhouse.domain.state.HeldAlert;
import io.streamhouse.domain.testdata.SampleEvents;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FraudAlertsTest {
    private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void aHistoryHoldsEachOffsetOnceInLogOrderAndTheNewestOnly() {
        FraudAlertHistory h = null;
        for (long offset = 0; offset < FraudAlerts.HELD + 10; offset++) {
            h = FraudAlerts.hold(h, "card-1", offset, bytes(offset));
        }
        assertThat(h.getAlerts()).hasSize(FraudAlerts.HELD);
        assertThat(h.getAlerts().get(0).getOffset()).isEqualTo(10);
        assertThat(FraudAlerts.newestOffset(h, Long.MAX_VALUE)).isEqualTo(FraudAlerts.HELD + 9);

        // A restore reads the topic again: an offset already held (or older) changes nothing.
        assertThat(FraudAlerts.hold(h, "card-1", 40, bytes(40))).isSameAs(h);
        assertThat(FraudAlerts.hold(h, "card-1", FraudAlerts.HELD + 9, bytes(0))).isSameAs(h);
    }

    @Test
    void upToAnOffsetIsThePrefixARebuildReads() {
        FraudAlertHistory h = FraudAlerts.hold(FraudAlerts.hold(FraudAlerts.hold(null, "c", 3, bytes(3)), "c", 7, bytes(7)), "c", 12, bytes(12));
        assertThat(FraudAlerts.upTo(h, 7)).extracting(HeldAlert::getOffset).containsExactly(3L, 7L);
        assertThat(FraudAlerts.newestOffset(h, 11)).isEqualTo(7);
        assertThat(FraudAlerts.newestOffset(h, 2)).isEqualTo(FraudAlerts.NONE);
        assertThat(FraudAlerts.upTo(h, FraudAlerts.NONE)).isEmpty();
        assertThat(FraudAlerts.newestOffset(null, Long.MAX_VALUE)).isEqualTo(FraudAlerts.NONE);
    }

    @Test
    void theAlertThatAppliesIsTheLatestToEndAtOrBeforeThePayment() {
        Alert early = alert("a1", T.minusSeconds(600), Map.of(), null);
        Alert late = alert("a2", T.plusSeconds(60), Map.of(), null);
        // Written later but about later payments: it does not hide the one that is about this payment.
        assertThat(FraudAlerts.applying(List.of(early, late), T)).isEqualTo(early);
        assertThat(FraudAlerts.applying(List.of(early, late), T.plusSeconds(60))).isEqualTo(late);
        assertThat(FraudAlerts.applying(List.of(late), T)).isNull();
        assertThat(FraudAlerts.applying(List.of(), T)).isNull();
    }

    @Test
    void aRevisionReplacesAndAWithdrawalRemovesTheAlertItSupersedes() {
        Alert first = alert("a1", T.minusSeconds(600), Map.of(), null);
        Alert revised = alert("a2", T.minusSeconds(300), Map.of(AlertsInEffect.SUPERSEDES, "a1"), null);
        Alert withdrawn = alert("w1", T.minusSeconds(300), Map.of(AlertsInEffect.SUPERSEDES, "a2"), AlertStatus.WITHDRAWN);
        Alert other = alert("b1", T.minusSeconds(3600), Map.of(), null);
        assertThat(FraudAlerts.applying(List.of(first, revised), T)).isEqualTo(revised);
        assertThat(FraudAlerts.applying(List.of(first, revised, withdrawn), T)).isNull();
        // A withdrawal takes only what it supersedes: an older alert in effect still applies.
        assertThat(FraudAlerts.applying(List.of(other, first, revised, withdrawn), T)).isEqualTo(other);
    }

    @Test
    void onlyFraudAlertsApply() {
        Alert parcel = Alert.newBuilder(alert("p1", T.minusSeconds(60), Map.of(), null)).setCategory(AlertCategory.PARCEL).build();
        assertThat(FraudAlerts.applying(List.of(parcel), T)).isNull();
    }

    private static ByteBuffer bytes(long n) {
        return ByteBuffer.wrap(new byte[]{(byte) n});
    }

    private static Alert alert(String id, Instant end, Map<String, String> attributes, AlertStatus status) {
        return Alert.newBuilder()
                .setEnvelope(SampleEvents.envelope("evt-" + id, "card-1", end, Alert.class))
                .setAlertId(id).setType(AlertType.CARD_TESTING).setCategory(AlertCategory.FRAUD).setSeverity(Severity.HIGH)
                .setSubject(AlertSubject.newBuilder().setKind(SubjectKind.CARD).setId("card-1").build())
                .setPatternId("card-testing").setPatternVersion(1).setSummary("3 small then 1 large")
                .setMatchedEventIds(List.of("e1")).setAttributes(attributes)
                .setWindowStart(end.minusSeconds(120)).setWindowEnd(end).setStatus(status)
                .build();
    }
}
