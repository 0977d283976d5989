package io.streamhouse.api.rules;

import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.RuleHistory;
import io.streamhouse.domain.state.RuleVersionEntry;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.projections.serving.RuleHistories;
import io.streamhouse.security.audit.AuditTrail;
import io.streamhouse.security.audit.Redaction;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What a rule change writes into its audit event, and how the versions answer joins the trail and the rule in force. */
class RuleVersionsViewTest {
    private static final RuleDefinition BUILT_IN = DefaultRules.definitions().stream()
            .filter(d -> d.getRuleId().equals("large-amount-review")).findFirst().orElseThrow();

    private static RuleVersionEntry entry(int version, String by) {
        return RuleVersionEntry.newBuilder().setVersion(version).setKind("amount-threshold").setEnabled(true)
                .setOutcome("REVIEW").setWeight(1.0).setDescription(null).setParameters(Map.of("threshold", "1"))
                .setTruncated(List.of()).setChangedBy(by).setChangedByRoles(List.of("rules-admin"))
                .setChangedAt(Times.T0.plusSeconds(version)).setChannel("http").setAuditEventId("e" + version).build();
    }

    private static RuleDefinition atVersion(int version) {
        return RuleDefinition.newBuilder(BUILT_IN).setVersion(version).build();
    }

    @Test
    void theDetailsCarryEveryFieldOfTheDefinitionAndNameTheOnesTheTrailCuts() {
        String longText = "x".repeat(AuditTrail.DETAIL_LENGTH + 1);
        RuleDefinition d = RuleDefinition.newBuilder(BUILT_IN).setVersion(7).setDescription(longText)
                .setParameters(Map.of("threshold", "1000.00", "note", "short")).build();

        Map<String, String> details = RuleAuditDetails.of(d);

        assertThat(details).containsEntry(RuleHistories.VERSION, "7").containsEntry(RuleHistories.KIND, d.getKind())
                .containsEntry(RuleHistories.ENABLED, "true").containsEntry(RuleHistories.OUTCOME, "REVIEW")
                .containsEntry(RuleHistories.WEIGHT, Double.toString(d.getWeight()))
                .containsEntry("parameter.threshold", "1000.00").containsEntry("parameter.note", "short")
                .containsEntry(RuleHistories.TRUNCATED, "description");
        assertThat(Redaction.clean(details.get(RuleHistories.DESCRIPTION), AuditTrail.DETAIL_LENGTH)).endsWith("…");
        assertThat(RuleAuditDetails.of(atVersion(1))).doesNotContainKey(RuleHistories.TRUNCATED);
    }

    @Test
    void theVersionInForceIsMarkedAndListedFromTheRulesStoreWhenTheTrailLacksIt() {
        RuleHistory history = new RuleHistory("large-amount-review", List.of(entry(3, "bob"), entry(2, "alice")));

        RuleVersionsView missingOne = RuleVersionsView.of("large-amount-review", atVersion(1), history, null);
        assertThat(missingOne.inForce()).isEqualTo(1);
        assertThat(missingOne.versions()).extracting(RuleVersionsView.Version::version).containsExactly(3, 2, 1);
        RuleVersionsView.Version oldest = missingOne.versions().get(2);
        assertThat(oldest.inAuditTrail()).isFalse();
        assertThat(oldest.inForce()).isTrue();
        assertThat(oldest.changedBy()).isNull();
        assertThat(oldest.changedAt()).isEqualTo(BUILT_IN.getEnvelope().getOccurredAt());

        RuleVersionsView held = RuleVersionsView.of("large-amount-review", atVersion(3), history, null);
        assertThat(held.versions()).extracting(RuleVersionsView.Version::inForce).containsExactly(true, false);
        assertThat(held.versions()).extracting(RuleVersionsView.Version::changedBy).containsExactly("bob", "alice");

        assertThat(RuleVersionsView.of("gone", null, null, null).versions()).isEmpty();
    }
}
