package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.testdata.Cards;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.util.BroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static io.streamhouse.detection.cep.CepEvents.payment;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stamping step before a CEP library pattern, given definitions on the rules topic, when facts pass, expect them
 * stamped with the thresholds and version in force: the defaults (v1) until a definition arrives, the newest valid one
 * after; an invalid definition, or one whose window exceeds the pattern's {@code within}, is refused and the last valid
 * one stays; facts the pattern cannot use under the thresholds in force stop here.
 */
class StampFactsTest {
    private final CardTestingPattern pattern = new CardTestingPattern();
    private BroadcastOperatorTestHarness<Tuple2<String, CepFact>, RuleDefinition, StampedFact> harness;
    private int sent;

    @BeforeEach
    void open() throws Exception {
        harness = ProcessFunctionTestHarnesses.forBroadcastProcessFunction(new StampFacts(pattern), StampFacts.RULES);
    }

    @Test
    void factsCarryTheDefaultsAtVersionOneUntilADefinitionArrives() throws Exception {
        assertThat(stampOf("1.00")).isNotNull().satisfies(s -> {
            assertThat(s.getThresholds().getVersion()).isEqualTo(1);
            assertThat(s.getThresholds().getSmallMax()).isEqualTo("2.00");
            assertThat(s.getThresholds().getWindowMs()).isEqualTo(600_000L);
        });
        assertThat(stampOf("2.50")).as("a mid-size payment takes part in no card test").isNull();
    }

    @Test
    void aNewVersionAppliesToTheNextFactWithoutARedeploy() throws Exception {
        harness.processBroadcastElement(cardTesting(2, Map.of("smallMax", "3.00")), 0);
        assertThat(stampOf("2.50")).as("small under v2").isNotNull().satisfies(s -> {
            assertThat(s.getThresholds().getVersion()).isEqualTo(2);
            assertThat(s.getThresholds().getSmallMax()).isEqualTo("3.00");
        });
    }

    @Test
    void anInvalidDefinitionOrAWindowBeyondWithinIsRefusedAndTheLastValidOneStays() throws Exception {
        harness.processBroadcastElement(cardTesting(2, Map.of("smallMax", "3.00")), 0);
        harness.processBroadcastElement(cardTesting(3, Map.of("smallMax", "abc")), 0);
        harness.processBroadcastElement(cardTesting(4, Map.of("window", "PT1H1S")), 0);
        harness.processBroadcastElement(cardTesting(1, Map.of()), 0);
        assertThat(stampOf("2.50").getThresholds().getVersion()).isEqualTo(2);

        harness.processBroadcastElement(cardTesting(5, Map.of("window", "PT1H")), 0);
        assertThat(stampOf("1.00").getThresholds()).satisfies(t -> {
            assertThat(t.getVersion()).isEqualTo(5);
            assertThat(t.getWindowMs()).isEqualTo(3_600_000L);
        });
    }

    @Test
    void aDisabledPatternGetsNoFacts() throws Exception {
        RuleDefinition off = cardTesting(2, Map.of());
        off.setEnabled(false);
        harness.processBroadcastElement(off, 0);
        assertThat(stampOf("1.00")).isNull();
    }

    /** The stamp of one payment of this amount, or null when the step dropped it. */
    private StampedFact stampOf(String amount) throws Exception {
        var tx = payment("p" + (++sent), Cards.STOLEN, amount, T0);
        int before = harness.extractOutputValues().size();
        harness.processElement(Tuple2.of(Cards.STOLEN, pattern.factOf(tx).orElseThrow()), T0.toEpochMilli());
        var out = harness.extractOutputValues();
        return out.size() == before ? null : out.get(out.size() - 1);
    }

    /** The default card-testing definition at {@code version}, with these parameters changed. */
    private static RuleDefinition cardTesting(int version, Map<String, String> changed) {
        RuleDefinition d = RuleDefinition.newBuilder(PatternSettings.defaultDefinitions().get(0)).build();
        Map<String, String> params = new HashMap<>(d.getParameters());
        params.putAll(changed);
        d.setParameters(params);
        d.setVersion(version);
        return d;
    }
}
