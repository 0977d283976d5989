package io.streamhouse.domain.detection;

import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.InvalidRuleException;
import io.streamhouse.domain.decision.RuleSet;
import io.streamhouse.domain.decision.Rules;
import io.streamhouse.domain.event.RuleDefinition;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PatternSettingsTest {

    @Test
    void theDefaultDefinitionsAreTheBuiltInSettings() {
        PatternSettings s = PatternSettings.defaults();
        for (RuleDefinition d : PatternSettings.defaultDefinitions()) {
            s = s.with(d);
        }
        assertThat(s).isEqualTo(PatternSettings.defaults());
        assertThat(s.cardTesting().smallMax()).isEqualByComparingTo("2.00");
        assertThat(s.overheating().window()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void aNewVersionReplacesOnePatternsThresholdsAndVersion() {
        RuleDefinition d = definition("cep-impossible-travel", 4, Map.of("maxKmh", "650"));
        PatternSettings s = PatternSettings.defaults().with(d);
        assertThat(s.impossibleTravel().maxKmh()).isEqualTo(650.0);
        assertThat(s.impossibleTravel().version()).isEqualTo(4);
        assertThat(s.cardTesting()).isEqualTo(PatternSettings.defaults().cardTesting());
    }

    @Test
    void badDefinitionsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> PatternSettings.validate(definition("cep-card-testing", 2,
                Map.of("smallMax", "600", "largeMin", "500", "minSmall", "3", "window", "PT10M"))))
                .isInstanceOf(InvalidRuleException.class).hasMessageContaining("smallMax");
        assertThatThrownBy(() -> PatternSettings.validate(definition("cep-parcel-sla", 2, Map.of("grace", "2 hours"))))
                .hasMessageContaining("parameters.grace");
        assertThatThrownBy(() -> Rules.validate(definition("cep-engine-overheating", 2,
                Map.of("thresholdC", "105", "minReadings", "1", "window", "PT5M"))))
                .hasMessageContaining("minReadings");
        RuleDefinition wrongId = definition("cep-card-testing", 2, Map.of());
        wrongId.setRuleId("my-card-testing");
        assertThatThrownBy(() -> PatternSettings.validate(wrongId)).hasMessageContaining("ruleId");
    }

    @Test
    void theDecisionRuleSetIgnoresPatternDefinitions() {
        var all = new ArrayList<>(DefaultRules.definitions());
        all.addAll(PatternSettings.defaultDefinitions());
        RuleSet withPatterns = RuleSet.of(all);
        assertThat(withPatterns.version()).isEqualTo(DefaultRules.ruleSet().version());
        assertThat(withPatterns.rules()).hasSameSizeAs(DefaultRules.ruleSet().rules());
        PatternSettings.defaultDefinitions().forEach(Rules::validate);
    }

    private static RuleDefinition definition(String kind, int version, Map<String, String> params) {
        RuleDefinition base = PatternSettings.defaultDefinitions().stream().filter(d -> d.getKind().equals(kind))
                .findFirst().orElseThrow();
        RuleDefinition d = RuleDefinition.newBuilder(base).build();
        d.setVersion(version);
        d.setParameters(new HashMap<>(params));
        return d;
    }

    @SuppressWarnings("unused")
    private static BigDecimal dec(String s) {
        return new BigDecimal(s);
    }
}
