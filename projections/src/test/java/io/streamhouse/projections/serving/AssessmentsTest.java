package io.streamhouse.projections.serving;

import io.streamhouse.domain.state.AlertEntry;
import io.streamhouse.domain.state.CustomerDecisionEntry;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.streamhouse.projections.serving.Assessments.SlaRisk;
import static org.assertj.core.api.Assertions.assertThat;

class AssessmentsTest {
    private static final Instant PROMISE = Times.T0.plus(Times.ONE_HOUR.multipliedBy(4));

    private static ParcelTracking parcel(Instant delivered) {
        return ParcelTracking.newBuilder().setParcelId("P-1").setStatus(delivered == null ? "OUT_FOR_DELIVERY" : "DELIVERED")
                .setPromisedBy(PROMISE).setDeliveredAt(delivered).setLastScanAt(Times.T0).setLastEventId("e").setScans(1)
                .setHistory(List.of()).build();
    }

    private static AlertEntry alert(String type, String severity) {
        return AlertEntry.newBuilder().setAlertId("a-" + type).setType(type).setCategory("X").setSeverity(severity)
                .setSubjectKind("PARCEL").setPatternId("p").setSummary("s").setOccurredAt(Times.T0).build();
    }

    @Test
    void slaRiskFollowsThePromiseAndTheReferenceInstant() {
        assertThat(Assessments.slaRisk(parcel(null), List.of(), Times.T0)).isEqualTo(SlaRisk.ON_TRACK);
        assertThat(Assessments.slaRisk(parcel(null), List.of(), PROMISE.minusSeconds(60))).isEqualTo(SlaRisk.AT_RISK);
        assertThat(Assessments.slaRisk(parcel(null), List.of(), PROMISE.plusSeconds(1))).isEqualTo(SlaRisk.BREACHED);
        assertThat(Assessments.slaRisk(parcel(null), List.of(alert("PARCEL_SLA_BREACH", "HIGH")), Times.T0)).isEqualTo(SlaRisk.BREACHED);
        assertThat(Assessments.slaRisk(parcel(PROMISE.plusSeconds(1)), List.of(), PROMISE)).isEqualTo(SlaRisk.DELIVERED_LATE);
        assertThat(Assessments.slaRisk(parcel(PROMISE), List.of(), PROMISE.plusSeconds(999))).isEqualTo(SlaRisk.DELIVERED_ON_TIME);
    }

    @Test
    void customerRiskIsTheWorstFindingWithEveryReason() {
        CustomerState quiet = CustomerState.newBuilder().setCustomerId("c-1").setLastEventId("e").setLastEventAt(Times.T0).build();
        assertThat(Assessments.customerRisk(quiet, List.of()).level()).isEqualTo(Assessments.RiskLevel.LOW);
        CustomerState reviewed = CustomerState.newBuilder(quiet).setDecisions(List.of(CustomerDecisionEntry.newBuilder()
                .setTransactionId("tx-1").setCardToken("t").setOutcome("REVIEW").setRuleIds(List.of()).setRequestedAt(Times.T0).build())).build();
        var medium = Assessments.customerRisk(reviewed, List.of(alert("ACCOUNT_TAKEOVER", "LOW")));
        assertThat(medium.level()).isEqualTo(Assessments.RiskLevel.MEDIUM);
        assertThat(medium.reasons()).hasSize(2);
        assertThat(Assessments.customerRisk(reviewed, List.of(alert("CARD_TESTING", "CRITICAL"))).level()).isEqualTo(Assessments.RiskLevel.HIGH);
    }
}
